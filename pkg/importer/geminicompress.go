package importer

// Gemini CLI chat compression (/compress, or automatic past half the
// model's window): the chat restarts on the same file with the history
// [user: the <state_snapshot> summary, gemini: "Got it. Thanks for the
// additional context!", ...the turns kept], each under a new id, which the
// recorder writes as one checkpoint line {"$set": {"messages": [...]}}
// (packages/core/src/core/client.ts tryCompressChat, geminiChat.ts
// initialize, chatRecordingService.ts updateMessagesFromHistory, at
// google-gemini/gemini-cli 5411f113). Imported as a summary record covering
// what came before, the originals kept; the acknowledgement and the kept
// turns' copies are not imported again.

import (
	"bytes"
	"encoding/json"
)

// gemCompression follows the checkpoints of a session file.
type gemCompression struct {
	kept map[uint64]bool // the ids of turns a compression kept (copies)
}

type gemSetMessage struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// set applies a $set of the messages at line l to refs: a compression
// becomes a ref of its own. Another list restates the history (on resume,
// tool outputs masked, a turn rolled back): the originals stay, as
// imported; one naming messages the file does not hold is noted.
func (gc *gemCompression) set(src *Source, refs []gemRef, raw json.RawMessage, l line) []gemRef {
	var msgs []gemSetMessage
	if json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 {
		src.Note("$set of the messages (not applied)")
		return refs
	}
	known := make(map[uint64]bool, len(refs))
	for _, r := range refs {
		known[r.id] = true
	}
	first := msgs[0]
	if first.Type == "user" && !known[idHash(first.ID)] && bytes.Contains(first.Content, []byte("<state_snapshot>")) {
		if gc.kept == nil {
			gc.kept = map[uint64]bool{}
		}
		for _, m := range msgs[1:] {
			gc.kept[idHash(m.ID)] = true
		}
		return append(refs, gemRef{id: idHash(first.ID), off: l.off, n: int32(l.end - l.off), line: -int32(l.n)})
	}
	for _, m := range msgs {
		if h := idHash(m.ID); !known[h] && !gc.kept[h] {
			src.Note("$set of the messages (not applied)")
			break
		}
	}
	return refs
}

// gemSummary is the first message of a compression's $set line.
func gemSummary(line []byte) []byte {
	var l struct {
		Set struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"$set"`
	}
	if json.Unmarshal(line, &l) != nil || len(l.Set.Messages) == 0 {
		return nil
	}
	return l.Set.Messages[0]
}
