package format

// Vercel AI SDK, legacy message shape (the `ai` package before CoreMessage,
// as its useChat Message type and OpenAI's deprecated function calling took
// it), which the reference formatter this tool replaces produced
// (shared/reference/message-formatters-typescript.md: "Uses function_call
// instead of tool_calls; converts tool results to 'function' role").
//
// https://platform.openai.com/docs/api-reference/chat/create (function_call,
// role "function", deprecated) and the ai v3 Message type:
//   - every message has the "id" the legacy Message type requires: the
//     record's ("system" for the system prompt; "<id>-2"... for the further
//     messages one record with several calls becomes);
//   - the system prompt is the first message, {"role":"system","content"};
//   - content is one string, contents joined by a blank line;
//   - an assistant message carries at most one
//     "function_call":{"name","arguments"} (arguments the stored JSON text),
//     and its result follows as {"role":"function","name","content"}. The
//     legacy shape has no call ids and no parallel calls, so an assistant
//     turn with several calls becomes, per call in order, an assistant
//     message (the turn's text on the first only) and the function message
//     answering it; nor has it an error flag: the result's text tells;
//   - --body: {"model","max_tokens","temperature","functions","messages"},
//     the request of that era; tools are "functions":[{"name",
//     "description","parameters"}]; no answer schema.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type vercelLegacyWire struct {
	// calls is the assistant turn held back until its results arrive.
	calls *Turn
}

// legacyID is a message's id: the record's, "<id>-2", "-3"... for the
// further messages one record becomes, "system" for the system prompt.
func legacyID(id string, n int) string {
	if n > 1 {
		return id + "-" + strconv.Itoa(n)
	}
	return id
}

func (*vercelLegacyWire) objectArgs() bool { return false }

type legacyMessage struct {
	ID           string          `json:"id"`
	Role         string          `json:"role"`
	Content      string          `json:"content"`
	Name         string          `json:"name,omitempty"`
	FunctionCall *openaiFunction `json:"function_call,omitempty"`
}

func (*vercelLegacyWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.bodySettings(r, "max_tokens")
	}
	if len(r.Tools) > 0 {
		decls := make([]functionDecl, len(r.Tools))
		for i := range r.Tools {
			t := &r.Tools[i]
			decls[i] = functionDecl{t.Name, t.Description, t.params()}
		}
		j.field("functions", decls)
	}
	j.openArray("messages")
	if len(system) > 0 {
		j.elem(legacyMessage{ID: "system", Role: "system", Content: strings.Join(system, "\n\n")})
	}
}

func (w *vercelLegacyWire) turn(j *jsonWriter, t *Turn) {
	text := strings.Join(t.Texts, "\n\n")
	if t.Role == transcript.RoleAssistant {
		if len(t.Calls) == 0 {
			j.elem(legacyMessage{ID: t.ID, Role: "assistant", Content: text})
			return
		}
		// written with the results, in the next user turn
		w.calls = &Turn{ID: t.ID, Texts: t.Texts, Calls: slices.Clone(t.Calls)}
		return
	}
	if a := w.calls; a != nil {
		w.calls = nil
		for i, c := range a.Calls {
			m := legacyMessage{ID: legacyID(a.ID, i+1), Role: "assistant", FunctionCall: &openaiFunction{c.Name, c.Args}}
			if i == 0 {
				m.Content = strings.Join(a.Texts, "\n\n")
			}
			j.elem(m)
			for _, r := range t.Results {
				if r.CallID == c.ID {
					j.elem(legacyMessage{ID: r.ID, Role: "function", Name: r.Name, Content: r.Text()})
				}
			}
		}
	}
	if text != "" {
		j.elem(legacyMessage{ID: t.ID, Role: "user", Content: text})
	}
}

func (*vercelLegacyWire) close(j *jsonWriter) { j.raw("]}") }
