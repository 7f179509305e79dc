// Package transcript holds the conversation record of SPEC section 1, the rules
// of section 2 as pure functions (the LLM view among them, whole or
// streamed), record references, annotations, forks, and JSONL streaming:
// the lenient input parser, the canonical encoder and the fast decoder of
// stored records. It knows nothing of files, SQLite or providers, and of
// the command line only the KEY=VALUE form annotations come in.
package transcript

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Role is who speaks a record.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleSummary   Role = "summary"
)

// Roles lists every valid role, in the order the docs give them.
var Roles = []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool, RoleSummary}

// Valid reports whether r is one of the five roles.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// Attribute values of metadata.attribute.
const (
	AttrFake   = "fake"
	AttrMerged = "merged"
)

// FakeContent is the text of the placeholder user record of rule 2.
const FakeContent = "..."

// MaxConversationBytes bounds a conversation id.
const MaxConversationBytes = 256

// ToolCall is one function call requested by an assistant record.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is a JSON text, kept byte for byte as the model produced it.
	Arguments string `json:"arguments"`
}

// ProviderItem is provider data an assistant record keeps to send back
// verbatim, to the provider that gave it only: an OpenAI reasoning item, an
// Anthropic thinking block, a Gemini part with its thought signature. It is
// no text of the conversation: never in contents, never summarized.
type ProviderItem struct {
	// Provider is the registry name of the provider that gave it.
	Provider string `json:"provider"`
	// At places it among the record's parts, numbered contents first, then
	// tool calls: the item goes before part At (At = their count: after
	// the last).
	At int `json:"at"`
	// Item is the provider's own JSON object (a request input item, a
	// content block, a part), compact.
	Item json.RawMessage `json:"item"`
	// Replaces: the item stands in for part At itself, which the provider
	// is then sent in this form only (a Gemini function call with its
	// thought signature and without the id convo made up for it).
	Replaces bool `json:"replaces,omitempty"`
}

// Message is what the LLM sees of a record.
type Message struct {
	Role      Role       `json:"role"`
	Contents  []string   `json:"contents"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ProviderData (assistant only) is kept for the provider it came from.
	ProviderData []ProviderItem `json:"provider_data,omitempty"`
	ToolCallID   string         `json:"tool_call_id,omitempty"`
	Name         string         `json:"name,omitempty"`
	IsError      bool           `json:"is_error,omitempty"`
}

// Timing holds the instants of a record in milliseconds since the epoch.
// Creation is always set; the others appear only when set.
type Timing struct {
	Creation    int64  `json:"creation"`
	PlayStart   *int64 `json:"playStart,omitempty"`
	PlayEnd     *int64 `json:"playEnd,omitempty"`
	ListenStart *int64 `json:"listenStart,omitempty"`
	ListenEnd   *int64 `json:"listenEnd,omitempty"`
	LLMStart    *int64 `json:"llmStart,omitempty"`
	LLMEnd      *int64 `json:"llmEnd,omitempty"`
}

// TimingKeys are the keys of metadata.timing, in canonical order.
var TimingKeys = []string{"creation", "playStart", "playEnd", "listenStart", "listenEnd", "llmStart", "llmEnd"}

// field returns the slot of key, or nil when key is not a timing key.
func (t *Timing) field(key string) **int64 {
	switch key {
	case "playStart":
		return &t.PlayStart
	case "playEnd":
		return &t.PlayEnd
	case "listenStart":
		return &t.ListenStart
	case "listenEnd":
		return &t.ListenEnd
	case "llmStart":
		return &t.LLMStart
	case "llmEnd":
		return &t.LLMEnd
	}
	return nil
}

// Set sets one timing key; it fails on a key that is not one of TimingKeys.
func (t *Timing) Set(key string, ms int64) error {
	if key == "creation" {
		t.Creation = ms
		return nil
	}
	f := t.field(key)
	if f == nil {
		return fmt.Errorf("unknown timing key %q (want one of %v)", key, TimingKeys)
	}
	*f = &ms
	return nil
}

// Get returns the value of a timing key and whether it is set.
func (t *Timing) Get(key string) (int64, bool) {
	if key == "creation" {
		return t.Creation, t.Creation != 0
	}
	if f := t.field(key); f != nil && *f != nil {
		return **f, true
	}
	return 0, false
}

// Metadata is what the log keeps beside the message.
type Metadata struct {
	Attribute  []string `json:"attribute,omitempty"`
	SummaryIDs []string `json:"summaryIds,omitempty"`
	Timing     Timing   `json:"timing"`
	// Aux values are kept as compact JSON texts so numbers stay exact.
	Aux map[string]json.RawMessage `json:"aux,omitempty"`
}

// Record is one line of a transcript.
type Record struct {
	ID           string   `json:"id"`
	Conversation string   `json:"conversation"`
	Message      Message  `json:"message"`
	Metadata     Metadata `json:"metadata"`
}

// IsFake reports whether r is a placeholder inserted by rule 2.
func (r *Record) IsFake() bool { return slices.Contains(r.Metadata.Attribute, AttrFake) }

// Merges counts the merges recorded on r.
func (r *Record) Merges() int {
	n := 0
	for _, a := range r.Metadata.Attribute {
		if a == AttrMerged {
			n++
		}
	}
	return n
}

// Clone returns a deep copy of r, so a caller may change it freely.
func (r Record) Clone() Record {
	r.Message.Contents = slices.Clone(r.Message.Contents)
	r.Message.ToolCalls = slices.Clone(r.Message.ToolCalls)
	r.Message.ProviderData = slices.Clone(r.Message.ProviderData)
	r.Metadata.Attribute = slices.Clone(r.Metadata.Attribute)
	r.Metadata.SummaryIDs = slices.Clone(r.Metadata.SummaryIDs)
	t := &r.Metadata.Timing
	for _, k := range TimingKeys[1:] {
		if f := t.field(k); *f != nil {
			v := **f
			*f = &v
		}
	}
	if r.Metadata.Aux != nil {
		aux := make(map[string]json.RawMessage, len(r.Metadata.Aux))
		for k, v := range r.Metadata.Aux {
			aux[k] = v
		}
		r.Metadata.Aux = aux
	}
	return r
}
