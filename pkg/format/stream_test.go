package format

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
)

// streamEvent is one event of a stream as pkg/llm frames it.
type streamEvent struct {
	name string
	data []byte
}

// streamEvents frames a stream the fake provider sends (SSE, NDJSON, or
// AWS event-stream messages, their checksums unchecked) into its events.
func streamEvents(t testing.TB, provider, stream string) []streamEvent {
	var out []streamEvent
	switch provider {
	case "ollama":
		for _, line := range strings.Split(stream, "\n") {
			if strings.TrimSpace(line) != "" {
				out = append(out, streamEvent{data: []byte(line)})
			}
		}
	case "bedrock":
		b := []byte(stream)
		for len(b) >= 16 {
			total, hlen := binary.BigEndian.Uint32(b[0:4]), binary.BigEndian.Uint32(b[4:8])
			headers, payload := b[12:12+hlen], b[12+hlen:total-4]
			ev := streamEvent{data: payload}
			for len(headers) > 0 {
				n := int(headers[0])
				name := string(headers[1 : 1+n])
				vlen := int(binary.BigEndian.Uint16(headers[2+n:]))
				if name == ":event-type" {
					ev.name = string(headers[4+n : 4+n+vlen])
				}
				headers = headers[4+n+vlen:]
			}
			out = append(out, ev)
			b = b[total:]
		}
	default:
		for _, block := range strings.Split(strings.ReplaceAll(stream, "\r\n", "\n"), "\n\n") {
			var ev streamEvent
			for _, line := range strings.Split(block, "\n") {
				if v, ok := strings.CutPrefix(line, "event: "); ok {
					ev.name = v
				} else if v, ok := strings.CutPrefix(line, "data: "); ok {
					ev.data = []byte(v)
				}
			}
			if ev.data != nil {
				out = append(out, ev)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no events in %q", provider, stream)
	}
	return out
}

// assemble feeds events to provider's assembler as pkg/llm does, up to the
// one that ends the answer, and returns the body and the text passed on.
func assemble(provider string, events []streamEvent) ([]byte, string, error) {
	p, _ := Lookup(provider)
	asm := p.NewStream()
	var text strings.Builder
	for _, ev := range events {
		end, err := asm.Add(ev.name, ev.data, func(s string) { text.WriteString(s) })
		if err != nil {
			return nil, text.String(), err
		}
		if end {
			break
		}
	}
	body, err := asm.Body()
	return body, text.String(), err
}

var streamAnswers = map[string]*providertest.Answer{
	"text":        {Text: "Hello, world."},
	"calls":       {Text: "Looking.", Calls: []providertest.Call{{ID: "call_1", Name: "lookup", Args: `{"q":"x","n":2}`}, {ID: "call_2", Name: "f", Args: `{}`}}},
	"only a call": {Calls: []providertest.Call{{ID: "call_1", Name: "f", Args: `{"x":1.50}`}}},
	"cut":         {Text: "Half an ans", Finish: "length"},
	"thinking":    {Text: "42", Thinking: "gAAAAABo-enc", Calls: []providertest.Call{{ID: "call_1", Name: "f", Args: `{"x":1}`}}},
	"refusal":     {Refusal: "I can't help with that."},
	"compaction":  {Text: "Go on.", Compaction: "The story so far."},
}

// TestStreamAssembles: every callable provider's stream assembles into a
// body that parses as the unstreamed body of the same answer does, its
// text passed on piece by piece (gemini's aside: its transport passes the
// SDK's text on).
func TestStreamAssembles(t *testing.T) {
	for _, p := range Providers(CanCall) {
		for name, a := range streamAnswers {
			t.Run(p.Name+"/"+name, func(t *testing.T) {
				body, text, err := assemble(p.Name, streamEvents(t, p.Name, providertest.Stream(p.Name, "m", a)))
				if err != nil {
					t.Fatal(err)
				}
				// An answer cut short parses with an *IncompleteError.
				got, gerr := ParseResponse(p.Name, body, nil)
				want, werr := ParseResponse(p.Name, []byte(providertest.Body(p.Name, "m", a)), nil)
				if !reflect.DeepEqual(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("assembled %s\nparsed %+v, %v\nwant   %+v, %v", body, got, gerr, want, werr)
				}
				if wantText := a.Text; p.Name != "gemini" && text != wantText {
					t.Errorf("text passed on %q, want %q", text, wantText)
				}
			})
		}
	}
}

// TestStreamCut: a stream that ends before its answer's last event is
// ErrStreamCut, which pkg/llm retries as a cut connection.
func TestStreamCut(t *testing.T) {
	for _, p := range Providers(CanCall) {
		events := streamEvents(t, p.Name, providertest.Stream(p.Name, "m", streamAnswers["text"]))
		for _, n := range []int{0, 1} {
			if _, _, err := assemble(p.Name, events[:n]); !errors.Is(err, ErrStreamCut) {
				t.Errorf("%s, %d of %d events: %v, want ErrStreamCut", p.Name, n, len(events), err)
			}
		}
	}
}

// TestStreamErrorEvent: an error event inside a stream is the provider's
// failure, with its message.
func TestStreamErrorEvent(t *testing.T) {
	for provider, data := range map[string]string{
		"openai":           `{"error":{"message":"Something went wrong"}}`,
		"openai-responses": `{"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null}`,
		"anthropic":        `{"type":"error","error":{"type":"overloaded_error","message":"Something went wrong"}}`,
		"ollama":           `{"error":"Something went wrong"}`,
	} {
		_, _, err := assemble(provider, []streamEvent{{name: "error", data: []byte(data)}})
		var e *ProviderError
		if !errors.As(err, &e) || !strings.Contains(e.Message, "Something went wrong") || e.Status != 200 {
			t.Errorf("%s: %v", provider, err)
		}
		if retry := provider == "anthropic"; e != nil && e.Retryable != retry {
			t.Errorf("%s: retryable %v, want %v", provider, e.Retryable, retry)
		}
	}
}

// fuzzStream fuzzes provider's assembler with streams of events, one a
// line, "NAME\tDATA": it never panics, fails only with a *ProviderError or
// ErrStreamCut, and a body it returns is JSON that ParseResponse reads
// without panicking.
func fuzzStream(f *testing.F, provider string) {
	for _, a := range streamAnswers {
		var seed bytes.Buffer
		for _, ev := range streamEvents(f, provider, providertest.Stream(provider, "m", a)) {
			seed.WriteString(ev.name + "\t")
			seed.Write(ev.data)
			seed.WriteByte('\n')
		}
		f.Add(seed.Bytes())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var events []streamEvent
		for _, line := range bytes.Split(in, []byte("\n")) {
			name, data, _ := bytes.Cut(line, []byte("\t"))
			events = append(events, streamEvent{name: string(name), data: data})
		}
		body, _, err := assemble(provider, events)
		var e *ProviderError
		if err != nil && !errors.Is(err, ErrStreamCut) && !errors.As(err, &e) {
			t.Fatalf("error %v (%T), want a *ProviderError or ErrStreamCut", err, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("body is not JSON: %s", body)
		}
		_, _ = ParseResponse(provider, body, nil)
	})
}

func FuzzOpenAIStream(f *testing.F)    { fuzzStream(f, "openai") }
func FuzzResponsesStream(f *testing.F) { fuzzStream(f, "openai-responses") }
func FuzzAnthropicStream(f *testing.F) { fuzzStream(f, "anthropic") }
func FuzzGeminiStream(f *testing.F)    { fuzzStream(f, "gemini") }
func FuzzOllamaStream(f *testing.F)    { fuzzStream(f, "ollama") }
func FuzzBedrockStream(f *testing.F)   { fuzzStream(f, "bedrock") }
