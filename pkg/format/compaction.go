package format

// Provider compaction: what a provider gives in place of the history it
// summarised, to be sent back to it instead of that history.
//   - anthropic: a {"type":"compaction","content","signature"?,
//     "encrypted_content"?,"tool_changes"?} block, first in the content of
//     an answer under threshold compaction (context_management edit
//     compact_20260112), or alone, stop_reason "compaction", from on-demand
//     compaction ("compaction":{"type":"summarize"}); content is the
//     readable summary, or null. It goes back unchanged, first in messages
//     (@anthropic-ai/sdk 1.14 BetaCompactionBlock, BetaCompactionBlockParam;
//     its CompactionBlockMisplacedError: "not the first block of the
//     conversation").
//   - openai-responses: an encrypted {"type":"compaction","id",
//     "encrypted_content","created_by"?} output item under context_management
//     compaction, and the output of POST /responses/compact
//     ({"object":"response.compaction","output":[user messages...,
//     compaction item]}), sent back as given but for the output-only
//     created_by: a compaction item with only what its input type takes
//     (openai 7.60 ResponseCompactionItemParam; responsesInput).
// convo stores it as a summary record (transcript/compaction.go): its text
// the readable summary or transcript.CompactionMarker, its items as
// provider data; the Renderer sends the items, in order, as the first
// (assistant) turn to the provider that made them.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Compaction is a provider's compaction found in a response body.
type Compaction struct {
	// Items are the provider's items, in order, byte for byte (compacted).
	Items []json.RawMessage
	// Text is the readable summary, "" when the provider gave none.
	Text string
	// Alone: the body holds nothing else (on-demand compaction,
	// /responses/compact); its Answer's Record is no answer to store.
	Alone bool
}

// Summary returns the summary record standing for c, covering the records
// covered (their ids, in order); aux is the record's aux.
func (c *Compaction) Summary(provider string, covered []string, aux map[string]json.RawMessage) transcript.Record {
	text := c.Text
	if strings.TrimSpace(text) == "" {
		text = transcript.CompactionMarker
	}
	rec := transcript.Record{Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{text}}}
	for _, it := range c.Items {
		rec.Message.ProviderData = append(rec.Message.ProviderData, transcript.ProviderItem{Provider: provider, At: 0, Item: it})
	}
	rec.Metadata.SummaryIDs = covered
	rec.Metadata.Aux = aux
	return rec
}

// compactionOf is the compaction the parser found, its items as compact
// JSON; nil for none.
func (a *answer) compactionOf() *Compaction {
	if len(a.compaction) == 0 {
		return nil
	}
	c := &Compaction{Text: a.compactionText}
	for _, raw := range a.compaction {
		if item, err := transcript.CompactJSON(raw); err == nil {
			c.Items = append(c.Items, item)
		}
	}
	return c
}

// setLead holds the items of rec, a compaction rendered for its provider:
// they go first, in an assistant turn of their own or before the first
// part of the assistant turn that follows (leadInto, flushLead).
func (r *Renderer) setLead(rec *transcript.Record) {
	r.lead = r.lead[:0]
	for _, d := range rec.Message.ProviderData {
		r.lead = append(r.lead, append(json.RawMessage(nil), d.Item...)) // rec is reused
	}
}

// leadInto puts the held compaction items first in t, an assistant turn.
func (r *Renderer) leadInto(t *Turn) {
	if len(r.lead) == 0 {
		return
	}
	o := opaque{text: -1}
	switch {
	case len(t.Texts) > 0:
		o.text = 0
	case len(t.Calls) > 0:
		o.call = t.Calls[0].ID
	}
	items := make([]opaque, 0, len(r.lead)+len(t.Items))
	for _, it := range r.lead {
		o.item = it
		items = append(items, o)
	}
	t.Items = append(items, t.Items...)
	t.lead, r.lead, r.leadSent = true, nil, true
}

// Betas are the anthropic-beta header values the payload needs: its
// context management's, and compaction's when it sends a compaction block
// back (which beta a block needs depends on how it was made: threshold or
// on demand, so both). Known once the payload is written.
func (r *Renderer) Betas() []string {
	if r.req.Provider != "anthropic" {
		return nil
	}
	var out []string
	if cm := r.req.ContextManagement; cm != nil {
		out = append(out, cm.Betas...)
	}
	if r.leadSent {
		for _, b := range []string{betaCompact, betaSummarize} {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// flushLead emits the held compaction items as an assistant turn of their
// own: what follows them is no assistant turn.
func (r *Renderer) flushLead() {
	if len(r.lead) == 0 {
		return
	}
	t := r.newTurn(transcript.RoleAssistant)
	r.leadInto(t)
	r.emit(t)
}

// compactionSummarizers names the summarizer that is each provider's own
// compaction (summarize --summarizer, and a compaction summary's
// aux.summarizer).
var compactionSummarizers = map[string]string{"anthropic": "anthropic-compaction", openaiResponses: "openai-compaction"}

// CompactionSummarizer is the name of provider's compaction as a
// summarizer, "" for a provider without one.
func CompactionSummarizer(provider string) string { return compactionSummarizers[provider] }

// CompactionProviderOf is the provider whose compaction the summarizer
// name is, and whether it is one.
func CompactionProviderOf(summarizer string) (string, bool) {
	for p, s := range compactionSummarizers {
		if s == summarizer {
			return p, true
		}
	}
	return "", false
}

// CompactionSummarizers lists the compaction summarizers, for help texts.
func CompactionSummarizers() []string { return []string{"anthropic-compaction", "openai-compaction"} }

// itemType is an output item's type, "" when it has none.
func itemType(raw json.RawMessage) string {
	var it struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &it)
	return it.Type
}
