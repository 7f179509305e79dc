package transcript

import (
	"fmt"
	"unicode/utf8"
)

// MaxRecordBytes bounds a record's text (SPEC section 1), as RecordSize
// counts it. Every entrance checks it, merges included, so that every
// record convo writes, every reader takes back.
const MaxRecordBytes = 4 << 20

// RecordSize returns what counts against MaxRecordBytes: the bytes r's
// message, metadata.attribute and metadata.aux take as AppendJSON writes
// them. Its id, conversation, timing and summaryIds are not counted: the
// appender and the clock fill in the first three, so a record measures the
// same before and after, and a summary lists every id it covers (tens of
// megabytes for a long conversation).
func RecordSize(r *Record) int {
	return messageSize(&r.Message) + attributeSize(len(r.Metadata.Attribute), r.Metadata.Attribute) + auxSize(r)
}

// CheckSize refuses a record over MaxRecordBytes with an *InputError
// naming its largest part. It is what a record built outside a reader (a
// summary, a provider's answer) must pass before it is stored.
func CheckSize(r *Record) error {
	if n := RecordSize(r); n > MaxRecordBytes {
		return sizeError(r, n)
	}
	return nil
}

func sizeError(r *Record, n int) error {
	field, part := largestPart(r)
	return fieldErr(field, "the record is %d bytes (this part %d), over the %s on a record's text: its message, attribute and aux, as convo writes them", n, part, limitText)
}

// limitText names MaxRecordBytes in errors.
var limitText = fmt.Sprintf("%d MiB limit (%d bytes)", MaxRecordBytes>>20, MaxRecordBytes)

// largestPart names the part of r that weighs most, for an error.
func largestPart(r *Record) (string, int) {
	field, most := "message", 0
	see := func(f string, n int) {
		if n > most {
			field, most = f, n
		}
	}
	m := &r.Message
	for i, c := range m.Contents {
		see(fmt.Sprintf("message.contents[%d]", i), stringSize(c))
	}
	for i, c := range m.ToolCalls {
		see(fmt.Sprintf("message.tool_calls[%d].arguments", i), stringSize(c.Arguments))
	}
	for i, d := range m.ProviderData {
		see(fmt.Sprintf("message.provider_data[%d].item", i), len(d.Item))
	}
	for k, v := range r.Metadata.Aux {
		see("metadata.aux."+k, len(v))
	}
	return field, most
}

// mergeError is a merge (rule 1) refused for the size it would make.
func mergeError(open, in *Record, n int) error {
	id := ""
	if open.ID != "" {
		id = " " + open.ID
	}
	return fieldErr("message", "merging this %s record into the %s record%s before it (rule 1) would make a record of %d bytes, over the %s on a record's text",
		in.Message.Role, open.Message.Role, id, n, limitText)
}

// The sizes below mirror encode.go byte for byte (the tests hold them to
// it): measuring costs a pass over the text, and no copy of it.

func messageSize(m *Message) int {
	n := len(`{"role":,"contents":}`) + stringSize(string(m.Role)) + stringsSize(m.Contents)
	if len(m.ToolCalls) > 0 {
		n += len(`,"tool_calls":[]`) + len(m.ToolCalls) - 1
		for i := range m.ToolCalls {
			n += toolCallSize(&m.ToolCalls[i])
		}
	}
	if len(m.ProviderData) > 0 {
		n += len(`,"provider_data":[]`) + len(m.ProviderData) - 1
		for i := range m.ProviderData {
			n += providerItemSize(&m.ProviderData[i], m.ProviderData[i].At)
		}
	}
	if m.ToolCallID != "" {
		n += len(`,"tool_call_id":`) + stringSize(m.ToolCallID)
	}
	if m.Name != "" {
		n += len(`,"name":`) + stringSize(m.Name)
	}
	if m.IsError {
		n += len(`,"is_error":true`)
	}
	return n
}

func toolCallSize(c *ToolCall) int {
	return len(`{"id":,"name":,"arguments":}`) + stringSize(c.ID) + stringSize(c.Name) + stringSize(c.Arguments)
}

// providerItemSize is d's size with at as its place.
func providerItemSize(d *ProviderItem, at int) int {
	n := len(`{"provider":,"at":,"item":}`) + stringSize(d.Provider) + intSize(at) + len(d.Item)
	if d.Replaces {
		n += len(`,"replaces":true`)
	}
	return n
}

// attributeSize is the list of n attributes, all but extra of them in
// attr and the rest "merged": 0 for none, as AppendJSON leaves it out.
func attributeSize(n int, attr []string) int {
	if n == 0 {
		return 0
	}
	s := 2 + n - 1 + (n-len(attr))*stringSize(AttrMerged)
	for _, a := range attr {
		s += stringSize(a)
	}
	return s
}

func auxSize(r *Record) int {
	aux := r.Metadata.Aux
	if len(aux) == 0 {
		return 0
	}
	n := 2 + len(aux) - 1
	for k, v := range aux {
		n += auxEntrySize(k, v)
	}
	return n
}

func auxEntrySize(k string, v []byte) int { return stringSize(k) + 1 + len(v) }

func stringsSize(ss []string) int {
	n := 2 + max(len(ss)-1, 0)
	for _, s := range ss {
		n += stringSize(s)
	}
	return n
}

func intSize(v int) int {
	n := 1
	if v < 0 {
		n++
	}
	for v /= 10; v != 0; v /= 10 {
		n++
	}
	return n
}

// stringSize is len(AppendString(nil, s)).
func stringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // \ufffd for one byte
		case r == '\u2028' || r == '\u2029':
			n += 3 // six bytes for three
		}
		i += size
	}
	return n
}

// mergeDelta is RecordSize(host) after mergeInto(host, in) less before,
// reckoned without merging: an appender checks each merge at the cost of
// the newcomer, however long the record merged into has grown.
func mergeDelta(host, in *Record) int {
	h, m := &host.Message, &in.Message
	d := 0
	// contents and tool calls are appended.
	if len(m.Contents) > 0 {
		d += stringsSize(m.Contents) - 2
		if len(h.Contents) > 0 {
			d++ // the comma between the two lists
		}
	}
	if len(m.ToolCalls) > 0 {
		for i := range m.ToolCalls {
			d += toolCallSize(&m.ToolCalls[i])
		}
		if len(h.ToolCalls) > 0 {
			d += len(m.ToolCalls)
		} else {
			d += len(`,"tool_calls":[]`) + len(m.ToolCalls) - 1
		}
	}
	// Provider data moves (mergeProviderData): the new places are measured.
	if len(h.ProviderData)+len(m.ProviderData) > 0 {
		before := 0
		if len(h.ProviderData) > 0 {
			before = len(`,"provider_data":[]`) + len(h.ProviderData) - 1
		}
		after := len(`,"provider_data":[]`) + len(h.ProviderData) + len(m.ProviderData) - 1
		n1, m1, n2 := len(h.Contents), len(h.ToolCalls), len(m.Contents)
		for i := range h.ProviderData {
			p := &h.ProviderData[i]
			before += providerItemSize(p, p.At)
			after += providerItemSize(p, hostItemAt(p.At, n1, m1, n2))
		}
		for i := range m.ProviderData {
			p := &m.ProviderData[i]
			after += providerItemSize(p, inItemAt(p.At, n1, m1, n2))
		}
		d += after - before
	}
	// One "merged" more, and the newcomer's.
	added := 1
	for _, a := range in.Metadata.Attribute {
		if a == AttrMerged {
			added++
		}
	}
	n := len(host.Metadata.Attribute)
	d += attributeSize(n+added, host.Metadata.Attribute) - attributeSize(n, host.Metadata.Attribute)
	// The newcomer's aux keys win.
	count := len(host.Metadata.Aux)
	for k, v := range in.Metadata.Aux {
		if old, ok := host.Metadata.Aux[k]; ok {
			d += len(v) - len(old)
			continue
		}
		d += auxEntrySize(k, v) + 1 // its comma, or one of the braces
		if count == 0 {
			d++ // the other brace
		}
		count++
	}
	return d
}
