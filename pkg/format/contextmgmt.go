package format

// Provider-side context management, passed through a request body as the
// caller names it (render --context-management): a compaction or
// context-editing strategy, which the provider applies on its side.
//   - anthropic (beta; @anthropic-ai/sdk 1.14 BetaContextManagementConfig,
//     BetaCompactionConfig): "context_management":{"edits":[...]} with
//     compact_20260112 (threshold compaction: {"type","trigger":{"type":
//     "input_tokens","value"},"pause_after_compaction","instructions"}),
//     clear_tool_uses_20250919 and clear_thinking_20251015 (context
//     editing); or on-demand compaction, "compaction":{"type":"summarize"},
//     which does not go with context_management. Each needs its beta header:
//     compact-2026-01-12, context-management-2025-06-27, compact-2026-09-04.
//   - openai-responses: "context_management":[{"type":"compaction",
//     "compact_threshold"?}] (server-side compaction).
// What comes back (a compaction block or item) append --from keeps
// (compaction.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// ContextManagement is a strategy as a body carries it.
type ContextManagement struct {
	// Field is the body's key: "context_management", or anthropic's
	// "compaction" for on-demand compaction.
	Field string
	Value json.RawMessage
	// Betas are the anthropic-beta header values the request needs.
	Betas []string
}

// Anthropic's beta header values for context management.
const (
	// BetaOnDemandCompaction is on-demand compaction's beta, which a
	// transport sends for the anthropic-compaction summarizer.
	BetaOnDemandCompaction = betaSummarize
	betaCompact            = "compact-2026-01-12"
	betaEditing            = "context-management-2025-06-27"
	betaSummarize          = "compact-2026-09-04"
)

// ContextStrategies names the strategies ParseContextManagement takes by
// name, for help texts.
const ContextStrategies = "compact, compact:TOKENS, clear-tool-uses, clear-thinking (anthropic), summarize (anthropic, on demand), or a JSON object"

// ParseContextManagement reads a strategy for provider: a name (see
// ContextStrategies) or the JSON value of the body's context_management
// (anthropic's on-demand {"type":"summarize"} too), passed as given.
func ParseContextManagement(provider, v string) (*ContextManagement, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	switch provider {
	case "anthropic", openaiResponses:
	default:
		return nil, fmt.Errorf("%s: no provider-side context management (anthropic and openai-responses have one)", provider)
	}
	if v[0] == '{' || v[0] == '[' {
		return contextJSON(provider, []byte(v))
	}
	name, arg, hasArg := strings.Cut(v, ":")
	var tokens int
	if hasArg {
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 || name != "compact" {
			return nil, fmt.Errorf("context management %q: want %s", v, ContextStrategies)
		}
		tokens = n
	}
	if provider == openaiResponses {
		if name != "compact" {
			return nil, fmt.Errorf("context management %q: openai-responses has compact and compact:TOKENS only", v)
		}
		item := `{"type":"compaction"}`
		if tokens > 0 {
			item = `{"type":"compaction","compact_threshold":` + strconv.Itoa(tokens) + `}`
		}
		return contextValue("context_management", "["+item+"]", nil), nil
	}
	switch name {
	case "compact":
		edit := `{"type":"compact_20260112"}`
		if tokens > 0 {
			edit = `{"type":"compact_20260112","trigger":{"type":"input_tokens","value":` + strconv.Itoa(tokens) + `}}`
		}
		return contextValue("context_management", `{"edits":[`+edit+`]}`, []string{betaCompact}), nil
	case "clear-tool-uses":
		return contextValue("context_management", `{"edits":[{"type":"clear_tool_uses_20250919"}]}`, []string{betaEditing}), nil
	case "clear-thinking":
		return contextValue("context_management", `{"edits":[{"type":"clear_thinking_20251015"}]}`, []string{betaEditing}), nil
	case "summarize":
		return contextValue("compaction", `{"type":"summarize"}`, []string{betaSummarize}), nil
	}
	return nil, fmt.Errorf("context management %q: want %s", v, ContextStrategies)
}

func contextValue(field, v string, betas []string) *ContextManagement {
	return &ContextManagement{Field: field, Value: json.RawMessage(v), Betas: betas}
}

// contextJSON takes a JSON value as given (compacted): anthropic's
// context_management object ({"edits":[...]}) or on-demand compaction
// object ({"type":"summarize"}), openai-responses' context_management list.
func contextJSON(provider string, raw []byte) (*ContextManagement, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("context management: not JSON: %v", err)
	}
	value, err := transcript.CompactJSON(raw) // as the caller wrote it
	if err != nil {
		return nil, err
	}
	if provider == openaiResponses {
		if _, ok := v.([]any); !ok {
			return nil, fmt.Errorf("context management: openai-responses takes a list, [{\"type\":\"compaction\"}]")
		}
		return &ContextManagement{Field: "context_management", Value: value}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("context management: anthropic takes an object, {\"edits\":[...]} or {\"type\":\"summarize\"}")
	}
	if obj["type"] == "summarize" {
		return &ContextManagement{Field: "compaction", Value: value, Betas: []string{betaSummarize}}, nil
	}
	edits, _ := obj["edits"].([]any)
	if len(edits) == 0 {
		return nil, fmt.Errorf("context management: want {\"edits\":[...]} with at least one edit")
	}
	var betas []string
	for _, e := range edits {
		t, _ := e.(map[string]any)["type"].(string)
		beta := betaEditing
		if strings.HasPrefix(t, "compact_") {
			beta = betaCompact
		}
		if !slices.Contains(betas, beta) {
			betas = append(betas, beta)
		}
	}
	return &ContextManagement{Field: "context_management", Value: value, Betas: betas}, nil
}

// ErrIncompatible is a request that asks for what the history it sends
// rules out: the provider would refuse it whole (a usage error).
var ErrIncompatible = errors.New("incompatible request")

// refuses reports why c cannot go with rec, the provider's own compaction
// sent first, or nil. Anthropic does not accept an on-demand compaction
// block together with a compact_20260112 edit (@anthropic-ai/sdk 1.17
// BetaToolRunner, rejectCompactionEdit: "the API doesn't accept a
// compaction block together with one"; the SDK refuses the pair before
// sending it). A block does not say how it was made: convo takes as on
// demand a block that came alone (stop reason compaction: its summary
// carries the usage, aux.usage, having no answer record to carry it),
// unless the edit itself pauses after compaction (pause_after_compaction:
// a paused threshold compaction comes alone too, and its loop asks for the
// pause every time).
func (c *ContextManagement) refuses(rec *transcript.Record) error {
	if c == nil || c.Field != "context_management" || !slices.Contains(c.Betas, betaCompact) || rec.CompactionProvider() != "anthropic" {
		return nil
	}
	if _, alone := rec.Metadata.Aux["usage"]; !alone || rec.Failed() {
		return nil
	}
	var v struct {
		Edits []struct {
			Type  string `json:"type"`
			Pause bool   `json:"pause_after_compaction"`
		} `json:"edits"`
	}
	_ = json.Unmarshal(c.Value, &v)
	for _, e := range v.Edits {
		if strings.HasPrefix(e.Type, "compact_") && !e.Pause {
			return fmt.Errorf("%w: --context-management asks for a %s edit, but the history opens with record %s, an on-demand compaction block (it came alone, stop reason compaction), and Anthropic does not accept a compaction block from on-demand compaction together with a compaction edit: render without the compact edit (\"summarize\" compacts on demand again), or ask for pause_after_compaction if the block came from a paused threshold compaction", ErrIncompatible, e.Type, rec.ID)
		}
	}
	return nil
}
