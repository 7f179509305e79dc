package format

// Provider data: what a provider gave with an answer that must go back to
// it verbatim on the next turn, and to no other provider (OpenAI reasoning
// items with their encrypted_content, Anthropic thinking and
// redacted_thinking blocks with their signature, Gemini parts with their
// thought signature, tool calls Gemini ran on its side with their results).
// A parser keeps each such item on the answer record
// (transcript.Message.ProviderData) with its place among the record's
// parts; the renderer of the same provider puts it back in that place; the
// others never see it. It is never text of the conversation: not in
// contents, so never summarized or counted.

import (
	"encoding/json"

	"github.com/convo-cli/convo/pkg/transcript"
)

// opaque is one provider item of a turn, anchored to the part it stands
// before (or replaces): text index text, else the call with id call, else
// the end of the turn.
type opaque struct {
	item     json.RawMessage
	replaces bool
	text     int
	call     string
}

// piece is one element of an assistant turn in order: a provider item, a
// text (index into Texts) or a call (index into Calls).
type piece struct {
	item       json.RawMessage
	text, call int
}

// walk calls fn for each element of the turn in the order the provider
// gave them: texts, then calls, provider items in their places, each
// replaced part given as its replacements.
func (t *Turn) walk(fn func(piece)) {
	if len(t.Items) == 0 {
		for i := range t.Texts {
			fn(piece{text: i, call: -1})
		}
		for i := range t.Calls {
			fn(piece{text: -1, call: i})
		}
		return
	}
	done := make([]bool, len(t.Items))
	emit := func(match func(o *opaque) bool, replaces bool) bool {
		any := false
		for i := range t.Items {
			o := &t.Items[i]
			if !done[i] && o.replaces == replaces && match(o) {
				done[i], any = true, true
				fn(piece{item: o.item, text: -1, call: -1})
			}
		}
		return any
	}
	for i := range t.Texts {
		at := func(o *opaque) bool { return o.call == "" && o.text == i }
		emit(at, false)
		if !emit(at, true) {
			fn(piece{text: i, call: -1})
		}
	}
	for i := range t.Calls {
		at := func(o *opaque) bool { return o.call == t.Calls[i].ID }
		emit(at, false)
		if !emit(at, true) {
			fn(piece{text: -1, call: i})
		}
	}
	// The end, and items whose part went (a call a lenient render
	// dropped): inserted ones stay, replacing ones go with their part.
	emit(func(*opaque) bool { return true }, false)
}

// replacement is the provider item standing for the call with id, if any.
func (t *Turn) replacement(id string) json.RawMessage {
	for _, o := range t.Items {
		if o.replaces && o.call == id {
			return o.item
		}
	}
	return nil
}

// addProviderData anchors the provider data of rec that is provider's to
// the parts of t, an assistant turn just built from rec (blank contents
// left out).
func addProviderData(t *Turn, provider string, rec *transcript.Record) {
	m := &rec.Message
	for _, d := range m.ProviderData {
		if d.Provider != provider {
			continue
		}
		o := opaque{item: d.Item, replaces: d.Replaces, text: -1}
		if d.At < len(m.Contents) {
			// before content At: after the texts kept before it; a blank
			// content is not sent, so nothing stands for it
			n := len(t.Texts) - len(appendTexts(nil, m.Contents[d.At:]))
			o.replaces = o.replaces && !blank(m.Contents[d.At])
			switch {
			case n < len(t.Texts):
				o.text = n
			case len(t.Calls) > 0:
				o.call = t.Calls[0].ID
			}
		} else if k := d.At - len(m.Contents); k < len(m.ToolCalls) {
			o.call = m.ToolCalls[k].ID
		}
		t.Items = append(t.Items, o)
	}
}

// keptItem is provider data a parser found, with the numbers of texts and
// calls found before it; text >= 0 when it stands for that text part,
// call when it stands for the next call.
type keptItem struct {
	raw          json.RawMessage
	texts, calls int
	text         int
	call         bool
	// before: the item stands before text, not for it
	before bool
}

// keep adds raw, an item of the response, to the provider data of the
// answer, at its place after the texts and calls found so far.
func (a *answer) keep(raw json.RawMessage) {
	a.kept = append(a.kept, keptItem{raw: raw, texts: len(a.texts), calls: len(a.calls), text: -1})
}

// keepForCall adds raw as the provider's own form of the next call found.
func (a *answer) keepForCall(raw json.RawMessage) {
	a.kept = append(a.kept, keptItem{raw: raw, calls: len(a.calls), text: -1, call: true})
}

// keepForText adds raw as (part of) the provider's own form of text i.
func (a *answer) keepForText(raw json.RawMessage, i int) {
	a.kept = append(a.kept, keptItem{raw: raw, text: i})
}

// keepBeforeText adds raw to stand before text i (the first text of the
// message it describes), wherever the calls are.
func (a *answer) keepBeforeText(raw json.RawMessage, i int) {
	a.kept = append(a.kept, keptItem{raw: raw, text: i, before: true})
}

// providerData places the kept items among the record's parts: contents
// (the record has that many) first, then calls.
func (a *answer) providerData(provider string, contents int) []transcript.ProviderItem {
	var out []transcript.ProviderItem
	for _, k := range a.kept {
		item, err := transcript.CompactJSON(k.raw)
		if err != nil {
			continue // parsers keep what they decoded: valid JSON
		}
		var at int
		switch {
		case k.text >= 0:
			at = k.text
		case k.call || k.calls > 0:
			at = contents + k.calls
		default:
			at = min(k.texts, contents)
		}
		out = append(out, transcript.ProviderItem{Provider: provider, At: at, Item: item, Replaces: k.call || k.text >= 0 && !k.before})
	}
	return out
}
