package transcript

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// DecodeStored reads a record in canonical form (a stored body, what
// AppendJSON writes) into r, replacing what r held, exactly as
// encoding/json would, but without its reflection: reading a long stored
// conversation is mostly decoding. A body it does not expect (white space,
// keys in another case, repeated keys) goes to encoding/json instead, so
// any JSON record reads; one that is not JSON is an error.
func DecodeStored(b []byte, r *Record) error {
	return decodeStored(b, r, nil)
}

// Pick narrows what DecodeStoredPick reads of a record's aux, for a reader
// that needs a few of its keys: building the map of them all was most of
// what an OpenTelemetry export spent decoding.
type Pick struct {
	Keys []string // the aux keys wanted
	// Vals is filled by DecodeStoredPick: Vals[i] is the value under
	// Keys[i] as its JSON text (the last one if the key repeats), nil when
	// absent. It may share memory with the body read: keep a copy.
	Vals []json.RawMessage
}

// DecodeStoredPick is DecodeStored, but it puts in pick.Vals the aux values
// under pick.Keys and leaves r.Metadata.Aux nil. A body DecodeStored
// rejects, it rejects.
func DecodeStoredPick(b []byte, r *Record, pick *Pick) error {
	if len(pick.Vals) != len(pick.Keys) {
		pick.Vals = make([]json.RawMessage, len(pick.Keys))
	}
	clear(pick.Vals)
	return decodeStored(b, r, pick)
}

func decodeStored(b []byte, r *Record, pick *Pick) error {
	conv := r.Conversation // reused when the next record names the same
	*r = Record{}
	if decodeCanonical(b, r, conv, pick) == nil {
		return nil
	}
	if pick != nil {
		clear(pick.Vals)
	}
	*r = Record{}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("record is not valid JSON: %w", err)
	}
	if pick != nil {
		for i, k := range pick.Keys {
			pick.Vals[i] = r.Metadata.Aux[k]
		}
		r.Metadata.Aux = nil
	}
	return nil
}

// keySet tracks the keys of one object read so far: what encoding/json
// does with a repeated key is left to encoding/json.
type keySet uint16

// dup marks key k as read and reports whether it was already.
func (s *keySet) dup(k uint) bool {
	d := *s&(1<<k) != 0
	*s |= 1 << k
	return d
}

// decodeCanonical is DecodeStored's hand parser; errUnexpected means "ask
// encoding/json". conv is a conversation id to reuse rather than copy.
func decodeCanonical(b []byte, r *Record, conv string, pick *Pick) error {
	if !utf8.Valid(b) { // encoding/json turns bad bytes into U+FFFD
		return errUnexpected
	}
	p := scanner{b: b, pick: pick}
	var seen keySet
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key []byte
		if key, err = p.key(); err != nil {
			return err
		}
		switch string(key) {
		case "id":
			if seen.dup(0) {
				return errUnexpected
			}
			r.ID, err = p.str()
		case "conversation":
			if seen.dup(1) {
				return errUnexpected
			}
			r.Conversation, err = p.known(conv, "")
		case "message":
			if seen.dup(2) {
				return errUnexpected
			}
			err = p.message(&r.Message)
		case "metadata":
			if seen.dup(3) {
				return errUnexpected
			}
			err = p.metadata(&r.Metadata)
		default:
			// encoding/json matches keys case-insensitively: leave the rest to it.
			return errUnexpected
		}
		if err != nil {
			return err
		}
	}
	if err == nil && p.i != len(b) {
		return errUnexpected
	}
	return err
}

// known reads a string, returning a or b instead of a copy when it is one
// of them.
func (p *scanner) known(a, b string) (string, error) {
	save := p.i
	if raw, err := p.rawStr(); err == nil {
		switch string(raw) {
		case a:
			return a, nil
		case b:
			return b, nil
		}
	}
	p.i = save
	return p.str()
}

func (p *scanner) message(m *Message) error {
	var seen keySet
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key []byte
		if key, err = p.key(); err != nil {
			return err
		}
		switch string(key) {
		case "role":
			if seen.dup(0) {
				return errUnexpected
			}
			var s string
			s, err = p.known(string(RoleUser), string(RoleAssistant))
			m.Role = Role(s)
		case "contents":
			if seen.dup(1) {
				return errUnexpected
			}
			m.Contents, err = p.strings("")
		case "tool_calls":
			if seen.dup(2) {
				return errUnexpected
			}
			m.ToolCalls = []ToolCall{}
			err = p.array(func() error {
				var c ToolCall
				err := p.toolCall(&c)
				m.ToolCalls = append(m.ToolCalls, c)
				return err
			})
		case "tool_call_id":
			if seen.dup(3) {
				return errUnexpected
			}
			m.ToolCallID, err = p.str()
		case "name":
			if seen.dup(4) {
				return errUnexpected
			}
			m.Name, err = p.str()
		case "is_error":
			if seen.dup(5) {
				return errUnexpected
			}
			m.IsError, err = p.boolean()
		default:
			return errUnexpected
		}
		if err != nil {
			return err
		}
	}
	return err
}

func (p *scanner) toolCall(c *ToolCall) error {
	var seen keySet
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key []byte
		if key, err = p.key(); err != nil {
			return err
		}
		var k uint
		var dst *string
		switch string(key) {
		case "id":
			k, dst = 0, &c.ID
		case "name":
			k, dst = 1, &c.Name
		case "arguments":
			k, dst = 2, &c.Arguments
		default:
			return errUnexpected
		}
		if seen.dup(k) {
			return errUnexpected
		}
		if *dst, err = p.str(); err != nil {
			return err
		}
	}
	return err
}

func (p *scanner) metadata(md *Metadata) error {
	var seen keySet
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key []byte
		if key, err = p.key(); err != nil {
			return err
		}
		switch string(key) {
		case "attribute":
			if seen.dup(0) {
				return errUnexpected
			}
			md.Attribute, err = p.strings(AttrMerged)
		case "summaryIds":
			if seen.dup(1) {
				return errUnexpected
			}
			md.SummaryIDs, err = p.strings("")
		case "timing":
			if seen.dup(2) {
				return errUnexpected
			}
			err = p.timing(&md.Timing)
		case "aux":
			if seen.dup(3) {
				return errUnexpected
			}
			err = p.aux(md)
		default:
			return errUnexpected
		}
		if err != nil {
			return err
		}
	}
	return err
}

func (p *scanner) timing(t *Timing) error {
	var seen keySet
	var block *[6]int64 // one allocation for every optional key
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key []byte
		if key, err = p.key(); err != nil {
			return err
		}
		if string(key) == "creation" {
			if seen.dup(0) {
				return errUnexpected
			}
			if t.Creation, err = p.integer(); err != nil {
				return err
			}
			continue
		}
		var k uint
		var dst **int64
		switch string(key) {
		case "playStart":
			k, dst = 1, &t.PlayStart
		case "playEnd":
			k, dst = 2, &t.PlayEnd
		case "listenStart":
			k, dst = 3, &t.ListenStart
		case "listenEnd":
			k, dst = 4, &t.ListenEnd
		case "llmStart":
			k, dst = 5, &t.LLMStart
		case "llmEnd":
			k, dst = 6, &t.LLMEnd
		default:
			return errUnexpected
		}
		if seen.dup(k) {
			return errUnexpected
		}
		if block == nil {
			block = new([6]int64)
		}
		if block[k-1], err = p.integer(); err != nil {
			return err
		}
		*dst = &block[k-1]
	}
	return err
}

// aux keeps each value as the JSON text it is, as json.RawMessage does,
// copied out of the body in one piece; with a Pick, only the values it
// wants, not copied.
func (p *scanner) aux(md *Metadata) error {
	start := p.i
	type span struct {
		key        string
		start, end int
	}
	var spans []span
	more, err := p.enter()
	for ; more && err == nil; more, err = p.more() {
		var key, v []byte
		if key, err = p.key(); err != nil {
			return err
		}
		if v, err = p.value(); err != nil {
			return errUnexpected
		}
		if p.pick == nil {
			spans = append(spans, span{string(key), p.i - len(v), p.i})
			continue
		}
		for i, k := range p.pick.Keys {
			if string(key) == k {
				p.pick.Vals[i] = v[:len(v):len(v)]
			}
		}
	}
	if err != nil {
		return err
	}
	if !json.Valid(p.b[start:p.i]) { // every value at once: one call is cheaper
		return errUnexpected
	}
	if p.pick != nil {
		return nil
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	md.Aux = make(map[string]json.RawMessage, len(spans))
	for _, s := range spans {
		md.Aux[s.key] = buf[s.start-start : s.end-start : s.end-start]
	}
	return nil
}
