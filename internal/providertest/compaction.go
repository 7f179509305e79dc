package providertest

import (
	"net/http"
	"strings"
)

// Provider compaction, as the APIs give and take it:
//   - anthropic: a {"type":"compaction","content","signature"} block first in
//     the content (threshold compaction), or alone with stop_reason
//     "compaction" (on-demand); streamed as content_block_start, then a
//     compaction_delta with the content. A request may hold one compaction
//     block, and only as the first block of its first message (the API's
//     compaction_block_misplaced and compaction_block_ambiguous errors);
//     that message may then be the assistant's.
//   - openai-responses: an encrypted {"type":"compaction","id",
//     "encrypted_content"} item first in the output; POST .../responses/compact
//     answers {"object":"response.compaction","output":[the input's user
//     messages..., one compaction item],"usage"}.

// CompactionSignature is the signature of the fake's compaction blocks.
const CompactionSignature = "EqQBCgIYAhIMcompaction"

// compacting reports whether a carries a compaction.
func (a *Answer) compacting() bool { return a.Compaction != "" || a.CompactionNull }

// anthropicCompaction is a's compaction block.
func anthropicCompaction(a *Answer) map[string]any {
	var content any = a.Compaction
	if a.CompactionNull {
		content = nil
	}
	return map[string]any{"type": "compaction", "content": content, "signature": CompactionSignature}
}

// responsesCompaction is a's compaction item: its text, "encrypted".
func responsesCompaction(a *Answer) map[string]any {
	return map[string]any{"type": "compaction", "id": "cmp_68c42f5e1a0c8190", "encrypted_content": "enc:" + a.Compaction}
}

// compactBody answers POST .../responses/compact: the input's user
// messages as output messages, then the compaction item.
func compactBody(req *Request, a *Answer) string {
	var out []any
	input, _ := req.Body["input"].([]any)
	for i, raw := range input {
		it, _ := raw.(map[string]any)
		if it["role"] != "user" {
			continue
		}
		content := it["content"]
		if text, ok := content.(string); ok {
			content = []any{map[string]any{"type": "input_text", "text": text}}
		}
		out = append(out, map[string]any{"id": "msg_u" + itoa(i), "type": "message", "status": "completed", "role": "user", "content": content})
	}
	out = append(out, responsesCompaction(a))
	return mustJSON(map[string]any{"id": "resp_cmp_68c42f5e", "object": "response.compaction", "created_at": 1741476777, "output": out,
		"usage": map[string]any{"input_tokens": 900, "output_tokens": 80, "total_tokens": 980}})
}

// checkAnthropicCompaction refuses a compaction block anywhere but first in
// the first message, and more than one; it reports whether the first
// message opens with one (and so may be the assistant's).
func checkAnthropicCompaction(msgs []any) (bool, int, string) {
	lead := false
	for i, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for j, b := range blocks {
			if blk, _ := b.(map[string]any); blk["type"] == "compaction" {
				if i != 0 || j != 0 {
					return false, http.StatusBadRequest, "compaction_block_misplaced: the compaction block must be the first block of the conversation"
				}
				if sig, _ := blk["signature"].(string); sig != CompactionSignature && blk["encrypted_content"] == nil {
					return false, http.StatusBadRequest, "compaction_signature_invalid: the compaction block's signature does not verify"
				}
				lead = true
			}
		}
	}
	return lead, 0, ""
}

// compactionFirst reports whether the Responses input's compaction items,
// if any, are one, before any assistant output (Items before the latest
// compaction item can be dropped; convo sends none).
func compactionFirst(input []any) bool {
	n := 0
	for _, raw := range input {
		if it, _ := raw.(map[string]any); it["type"] == "compaction" {
			n++
			if enc, _ := it["encrypted_content"].(string); !strings.HasPrefix(enc, "enc:") {
				return false
			}
		}
	}
	return n <= 1
}
