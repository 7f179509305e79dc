package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// Validate checks the invariants of a record, whatever form it came in,
// its size (CheckSize) included. An unset id, conversation or creation
// time is allowed: the appender sets them.
func Validate(r *Record) error { return validate(r, true) }

// MaxNesting bounds how deep tool-call arguments nest: as deep as
// encoding/json reads, so that every reader, and every provider request
// they go into, takes what one takes.
const MaxNesting = 10000

// validate is Validate; without summaryIDs a summary may lack them, as one
// read to be rendered may.
func validate(r *Record, summaryIDs bool) error {
	m := &r.Message
	if r.ID != "" {
		if _, err := ulid.ParseStrict(r.ID); err != nil || len(r.ID) != ulid.EncodedSize {
			return fieldErr("id", "%q is not a ULID (26 characters of Crockford base32)", r.ID)
		}
	}
	if len(r.Conversation) > MaxConversationBytes {
		return fieldErr("conversation", "longer than %d bytes", MaxConversationBytes)
	}
	if strings.IndexByte(r.Conversation, 0) >= 0 {
		return fieldErr("conversation", "contains a NUL character")
	}
	if !m.Role.Valid() {
		return fieldErr("message.role", "unknown role %q", m.Role)
	}
	if len(m.Contents) == 0 && !(m.Role == RoleAssistant && len(m.ToolCalls) > 0) {
		return fieldErr("message.contents", "empty: a %s record needs at least one content string", m.Role)
	}
	for i, c := range m.Contents {
		if strings.IndexByte(c, 0) >= 0 {
			return fieldErr(fmt.Sprintf("message.contents[%d]", i), "contains a NUL character")
		}
	}
	if m.Role == RoleSummary && len(m.Contents) != 1 {
		return fieldErr("message.contents", "a summary holds exactly one content string, got %d", len(m.Contents))
	}
	if summaryIDs {
		if err := checkSummaryIDs(r); err != nil {
			return err
		}
	}
	if len(m.ToolCalls) > 0 && m.Role != RoleAssistant {
		return fieldErr("message.tool_calls", "only assistant records carry tool calls")
	}
	for i, c := range m.ToolCalls {
		field := fmt.Sprintf("message.tool_calls[%d]", i)
		if c.ID == "" {
			return fieldErr(field+".id", "missing tool call id")
		}
		if c.Name == "" {
			return fieldErr(field+".name", "missing tool name")
		}
		if strings.IndexByte(c.ID+c.Name+c.Arguments, 0) >= 0 {
			return fieldErr(field, "contains a NUL character")
		}
		if nestedDeeper(c.Arguments, MaxNesting) {
			return fieldErr(field+".arguments", "nested more than %d levels deep, deeper than any reader goes", MaxNesting)
		}
	}
	if err := checkProviderData(m); err != nil {
		return err
	}
	if m.Role == RoleTool {
		if m.ToolCallID == "" {
			return fieldErr("message.tool_call_id", "a tool record needs the id of the call it answers")
		}
	} else {
		switch {
		case m.ToolCallID != "":
			return fieldErr("message.tool_call_id", "only tool records answer a tool call")
		case m.Name != "":
			return fieldErr("message.name", "only tool records carry a name")
		case m.IsError:
			return fieldErr("message.is_error", "only tool records carry is_error")
		}
	}
	for i, a := range r.Metadata.Attribute {
		if a != AttrFake && a != AttrMerged {
			return fieldErr(fmt.Sprintf("metadata.attribute[%d]", i), "unknown attribute %q (want fake or merged)", a)
		}
	}
	if len(r.Metadata.SummaryIDs) > 0 && m.Role != RoleSummary {
		return fieldErr("metadata.summaryIds", "only summary records carry summaryIds")
	}
	for i, id := range r.Metadata.SummaryIDs {
		if _, err := ulid.ParseStrict(id); err != nil {
			return fieldErr(fmt.Sprintf("metadata.summaryIds[%d]", i), "%q is not a ULID", id)
		}
	}
	for _, k := range TimingKeys {
		if v, ok := r.Metadata.Timing.Get(k); ok && v < 0 {
			return fieldErr("metadata.timing."+k, "negative time %d: want milliseconds since the epoch", v)
		}
	}
	if err := validUTF8(r); err != nil {
		return err
	}
	return CheckSize(r)
}

// nestedDeeper reports whether the JSON text s (valid or not) opens more
// than max objects and lists inside one another, strings aside.
func nestedDeeper(s string, max int) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			depth--
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return false
}

// validUTF8 checks every text of r: a stored record that is not valid UTF-8
// makes every later get and export print invalid JSON.
func validUTF8(r *Record) error {
	m := &r.Message
	check := func(field, s string) error {
		if utf8.ValidString(s) {
			return nil
		}
		return fieldErr(field, "invalid UTF-8 at byte %d", InvalidUTF8At([]byte(s))+1)
	}
	if err := check("conversation", r.Conversation); err != nil {
		return err
	}
	for i, c := range m.Contents {
		if err := check(fmt.Sprintf("message.contents[%d]", i), c); err != nil {
			return err
		}
	}
	for i, c := range m.ToolCalls {
		if err := check(fmt.Sprintf("message.tool_calls[%d]", i), c.ID+c.Name+c.Arguments); err != nil {
			return err
		}
	}
	for i, d := range m.ProviderData {
		if err := check(fmt.Sprintf("message.provider_data[%d]", i), d.Provider+string(d.Item)); err != nil {
			return err
		}
	}
	if err := check("message.tool_call_id", m.ToolCallID); err != nil {
		return err
	}
	if err := check("message.name", m.Name); err != nil {
		return err
	}
	for k, v := range r.Metadata.Aux {
		if err := check("metadata.aux."+strings.ToValidUTF8(k, "\ufffd"), k+string(v)); err != nil {
			return err
		}
	}
	return nil
}

// checkSummaryIDs: a summary says which records it replaces (SPEC section
// 1; the record schema requires it).
func checkSummaryIDs(r *Record) error {
	if r.Message.Role == RoleSummary && len(r.Metadata.SummaryIDs) == 0 {
		return fieldErr("metadata.summaryIds", "a summary record needs the ids of the records it replaces")
	}
	return nil
}

// checkProviderData: provider data belongs to an assistant record or a
// summary standing for a provider's compaction (one provider's, all at 0),
// names its provider, stands at a place among the record's parts, and is a
// JSON object.
func checkProviderData(m *Message) error {
	if len(m.ProviderData) > 0 && m.Role != RoleAssistant && m.Role != RoleSummary {
		return fieldErr("message.provider_data", "only assistant and summary records carry provider data")
	}
	if m.Role == RoleSummary {
		for i, d := range m.ProviderData {
			switch {
			case d.Provider != m.ProviderData[0].Provider:
				return fieldErr(fmt.Sprintf("message.provider_data[%d].provider", i), "a compaction is one provider's")
			case d.At != 0 || d.Replaces:
				return fieldErr(fmt.Sprintf("message.provider_data[%d].at", i), "a compaction's items stand at 0, replacing nothing")
			}
		}
	}
	parts := len(m.Contents) + len(m.ToolCalls)
	for i, d := range m.ProviderData {
		field := fmt.Sprintf("message.provider_data[%d]", i)
		item := strings.TrimSpace(string(d.Item))
		switch {
		case d.Provider == "":
			return fieldErr(field+".provider", "missing provider")
		case d.At < 0 || d.At > parts || d.Replaces && d.At == parts:
			return fieldErr(field+".at", "%d is not the place of a part (the record has %d)", d.At, parts)
		case item == "" || item[0] != '{' || !json.Valid(d.Item):
			return fieldErr(field+".item", "want a JSON object")
		case strings.IndexByte(d.Provider, 0) >= 0:
			return fieldErr(field+".provider", "contains a NUL character")
		}
	}
	return nil
}
