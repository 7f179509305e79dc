package format

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Capability is what convo does with a provider.
type Capability uint8

const (
	// CanRender: Renderer writes its request payload (render, ask, summarize).
	CanRender Capability = 1 << iota
	// CanParse: ParseResponse reads its response body (append --from, ask,
	// summarize).
	CanParse
	// CanCall: pkg/llm has a transport for it (ask, summarize).
	CanCall
)

const canAll = CanRender | CanParse | CanCall

// Provider is one provider as convo knows it. The registry below is the one
// list of providers: every provider list, flag help and error text derives
// from it, and pkg/llm reads its endpoints and environment names here.
type Provider struct {
	Name string
	Can  Capability
	// DefaultModel is the model ask and summarize send when none is given;
	// "" when the user must name one (only they know what a local server
	// has pulled).
	DefaultModel string
	// KeyEnv names the environment variable of the API key, "" when the
	// provider takes none; BaseURLEnv that of the endpoint root, whose
	// default is BaseURL ({region} standing for the AWS region in
	// bedrock's). Bedrock's key is optional: without one, requests are
	// signed with the AWS credential chain's (SigV4).
	KeyEnv, BaseURLEnv, BaseURL string
	// MaxTokens is the output limit a whole request body carries when the
	// caller gives none, the same for render --body, ask and summarize; 0
	// writes none, so the provider's own default applies. Only anthropic
	// requires one: 4096, the largest output every current Claude model
	// accepts.
	MaxTokens int
	// ModelInURL: the endpoint URL names the model, the body does not.
	ModelInURL bool
	// Tools: the body can carry tools (render and ask --tools) and, unless
	// checkTools says no, an answer schema (--schema).
	Tools bool
	// APIVersions are the API versions a body can be written for, the
	// default first (anthropic's anthropic-version header); none for a
	// provider that versions by URL or not at all.
	APIVersions []APIVersion

	newWire func() wire
	parse   func(body []byte) (*answer, error)
	// stream assembles its streamed answer (see NewStream).
	stream func() StreamAssembler
	// checkTools, when set, rejects tools or a schema (provider form) the
	// provider's way of sending them cannot carry.
	checkTools func(tools []Tool, schema json.RawMessage) error
}

// noAnswerSchema is the checkTools of a provider whose body has tools but
// no answer schema.
func noAnswerSchema(name string) func([]Tool, json.RawMessage) error {
	return func(_ []Tool, schema json.RawMessage) error {
		if len(schema) > 0 {
			return fmt.Errorf("%s: answer schemas are not supported", name)
		}
		return nil
	}
}

// APIVersion is one version of a provider's API and what its request
// takes.
type APIVersion struct {
	Name string
	// NoTemperature: the request type has no temperature.
	NoTemperature bool
}

// Version returns the API version named ("" for the default); nil for a
// provider without versions. An unknown name is an error naming the known
// ones: convo cannot tell what its body takes.
func (p *Provider) Version(name string) (*APIVersion, error) {
	if len(p.APIVersions) == 0 {
		return nil, nil
	}
	if name == "" {
		return &p.APIVersions[0], nil
	}
	for i := range p.APIVersions {
		if p.APIVersions[i].Name == name {
			return &p.APIVersions[i], nil
		}
	}
	var known []string
	for _, v := range p.APIVersions {
		known = append(known, v.Name)
	}
	return nil, fmt.Errorf("%s API version %q: want one of %s", p.Name, name, strings.Join(known, ", "))
}

// NewStream returns the assembler of p's streamed answer, nil for a
// provider convo cannot call. Who owns a stream, decided per provider: the
// JSON of its events is always its format's (<provider>_stream.go, each
// event decoded once there, into the body ParseResponse reads for the
// unstreamed call); pkg/llm frames the stream and hands each event on:
//   - openai, openai-responses, anthropic: SSE events;
//   - ollama: NDJSON lines;
//   - bedrock: AWS event-stream frames, whose exception and error frames
//     pkg/llm turns into errors itself (their headers say which);
//   - gemini: SSE events as sent, recorded while the genai SDK reads the
//     stream. The SDK makes the call and decodes each chunk into its own
//     types too; the text passed on as it arrives is read from those, the
//     answer from the events here (the SDK's types reorder a call's
//     arguments and reformat its numbers).
func (p *Provider) NewStream() StreamAssembler {
	if p.stream == nil {
		return nil
	}
	return p.stream()
}

// CanDo reports whether p has every capability of c.
func (p *Provider) CanDo(c Capability) bool { return p.Can&c == c }

// registry lists the providers in the order the docs name them.
var registry = []Provider{
	{Name: "openai", Can: canAll, DefaultModel: "gpt-4o-mini", KeyEnv: "OPENAI_API_KEY",
		BaseURLEnv: "OPENAI_BASE_URL", BaseURL: "https://api.openai.com/v1", Tools: true,
		newWire: func() wire { return openaiWire{} }, parse: parseOpenAI,
		stream: func() StreamAssembler { return &openaiStream{} }},
	{Name: openaiResponses, Can: canAll, DefaultModel: "gpt-5-mini", KeyEnv: "OPENAI_API_KEY",
		BaseURLEnv: "OPENAI_BASE_URL", BaseURL: "https://api.openai.com/v1", Tools: true,
		newWire: func() wire { return &responsesWire{} }, parse: parseOpenAIResponses,
		stream: func() StreamAssembler { return &responsesStream{} }},
	{Name: "anthropic", Can: canAll, DefaultModel: "claude-haiku-4-5", KeyEnv: "ANTHROPIC_API_KEY",
		BaseURLEnv: "ANTHROPIC_BASE_URL", BaseURL: "https://api.anthropic.com", MaxTokens: 4096, Tools: true, APIVersions: anthropicVersions,
		newWire: func() wire { return anthropicWire{} }, parse: parseAnthropic, checkTools: anthropicCheckTools,
		stream: func() StreamAssembler { return &anthropicStream{} }},
	{Name: "gemini", Can: canAll, DefaultModel: "gemini-2.5-flash", KeyEnv: "GEMINI_API_KEY",
		BaseURLEnv: "GOOGLE_GEMINI_BASE_URL", BaseURL: "https://generativelanguage.googleapis.com/", ModelInURL: true, Tools: true,
		newWire: func() wire { return &geminiWire{} }, parse: parseGemini,
		stream: func() StreamAssembler { return &geminiStream{} }},
	{Name: "bedrock", Can: canAll, KeyEnv: "AWS_BEARER_TOKEN_BEDROCK",
		BaseURLEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME", BaseURL: "https://bedrock-runtime.{region}.amazonaws.com", ModelInURL: true, Tools: true,
		newWire: func() wire { return bedrockWire{} }, parse: parseBedrock, checkTools: noAnswerSchema("bedrock"),
		stream: func() StreamAssembler { return &bedrockStream{} }},
	{Name: "vercel", Can: CanRender, Tools: true,
		newWire: func() wire { return vercelWire{} }, checkTools: noAnswerSchema("vercel")},
	{Name: "vercel-legacy", Can: CanRender, Tools: true,
		newWire: func() wire { return &vercelLegacyWire{} }, checkTools: noAnswerSchema("vercel-legacy")},
	{Name: "ollama", Can: canAll, BaseURLEnv: "OLLAMA_HOST", BaseURL: "http://localhost:11434", Tools: true,
		newWire: func() wire { return ollamaWire{} }, parse: parseOllama,
		stream: func() StreamAssembler { return &ollamaStream{} }},
}

// Lookup returns the named provider.
func Lookup(name string) (Provider, bool) {
	i := slices.IndexFunc(registry, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, false
	}
	return registry[i], true
}

// Providers returns the providers with every capability of c, in the
// registry's order.
func Providers(c Capability) []Provider {
	var out []Provider
	for _, p := range registry {
		if p.CanDo(c) {
			out = append(out, p)
		}
	}
	return out
}

// Names returns the names of the providers with every capability of c.
func Names(c Capability) []string {
	var out []string
	for _, p := range Providers(c) {
		out = append(out, p.Name)
	}
	return out
}

// NameList is Names(c) joined by ", ", for help and error texts.
func NameList(c Capability) string { return strings.Join(Names(c), ", ") }

// lookup is Lookup for one capability, with the error a caller shows.
func lookup(name string, c Capability) (Provider, error) {
	p, ok := Lookup(name)
	if !ok || !p.CanDo(c) {
		return Provider{}, &UnknownError{Name: name, Want: Names(c)}
	}
	return p, nil
}

// UnknownError names a provider the registry does not hold with the
// capability asked for.
type UnknownError struct {
	Name string
	Want []string
}

func (e *UnknownError) Error() string {
	return "unknown provider " + quoteName(e.Name) + " (want one of " + strings.Join(e.Want, ", ") + ")"
}

func quoteName(s string) string { return string(quote(s)) }
