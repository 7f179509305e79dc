// Package providertest is the one fake provider server of every test and
// benchmark. It speaks each callable provider's wire format as the real API
// does, told apart by the request's path:
//
//   - openai: POST .../chat/completions, chat.completion bodies, and with
//     "stream": true server-sent chat.completion.chunk events ending in
//     [DONE];
//   - openai-responses: POST .../responses, response objects, and with
//     "stream": true the response.created ... response.completed events
//     (responses.go);
//   - anthropic: POST /v1/messages, message bodies, and with "stream": true
//     the message_start ... message_stop events;
//   - gemini: POST /v1beta/models/M:generateContent, and
//     M:streamGenerateContent?alt=sse for a stream, as google.golang.org/genai
//     calls them;
//   - ollama: POST /api/chat, one body with "stream": false, else NDJSON
//     lines (Ollama streams by default);
//   - bedrock: POST /model/{modelId}/converse, and /converse-stream for an
//     AWS event stream, signed with SigV4 (see bedrock.go).
//
// It plays a script of steps (answers, error statuses with Retry-After,
// garbage, silence), checks what the strictest provider checks (a JSON
// body, the key when one is set, Anthropic's alternating roles and
// required max_tokens) and records every request: path, headers with
// secrets masked, body. It knows nothing of convo's own packages, so it
// checks them rather than echoing them.
package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Answer is what the fake provider answers, in neutral terms; each provider
// writes it in its own format.
type Answer struct {
	Text  string
	Calls []Call
	// Finish is the provider's finish reason; "" for a normal end.
	Finish string
	// Refusal is an openai refusal (message.refusal).
	Refusal string
	// Structured: anthropic gives a JSON Text as the input of the forced
	// structured_answer tool, as it answers a schema request.
	Structured bool
	// Blocked: gemini blocks the prompt for this reason, before any
	// candidate.
	Blocked string
	// Thinking, when set, is an openai-responses reasoning item's
	// encrypted_content or an anthropic thinking block's signature, said
	// before the answer.
	Thinking string
	// Compaction, when set, is a provider compaction given first
	// (compaction.go): anthropic's block's readable content (null with
	// CompactionNull), the openai-responses item's encrypted_content seed.
	// With no Text and no Calls it is the whole answer (on-demand).
	Compaction     string
	CompactionNull bool
}

// Call is one tool call of an answer; providers that give calls no id
// (gemini, ollama) leave ID out.
type Call struct{ ID, Name, Args string }

// Step is the server's response to one request.
type Step struct {
	// Status is the HTTP status; 0 means 200, or 500 with Error.
	Status int
	Header map[string]string
	// Answer is written in the provider's format, streamed when the request
	// asks for a stream.
	Answer *Answer
	// Error is written as the provider's error body carrying this message.
	Error string
	// Body is written as it is (application/json unless Header says).
	Body string
	// Delay waits before answering; Hang waits until the client gives up.
	Delay time.Duration
	Hang  bool
	// Handle, when set, answers the request itself.
	Handle http.HandlerFunc
}

// Request is one request the server got.
type Request struct {
	// Provider is the format the path names: openai, anthropic, gemini,
	// ollama or bedrock.
	Provider string
	Path     string
	// Model is the model the body or, for gemini, the path names.
	Model string
	// Stream says the request asked for a stream.
	Stream bool
	// Header is the request's headers, the key (Options.Key) replaced by
	// [KEY] and any other credential by [SECRET].
	Header http.Header
	Body   map[string]any
	Raw    string
	At     time.Time
}

// Options shape a server.
type Options struct {
	// Steps are played in order, the last one again and again; none
	// answers "OK." to everything.
	Steps []Step
	// Next, when set, chooses the step of the n-th request (from 1)
	// instead.
	Next func(n int, r *Request) Step
	// Key, when set, is the API key openai, anthropic and gemini requests
	// must carry (a 401 otherwise), and the AWS secret access key bedrock
	// requests are signed with, or its API key (a 403 otherwise).
	Key string
	// Forget keeps no requests: for a long benchmark.
	Forget bool
}

// Server is a running fake provider.
type Server struct {
	*httptest.Server
	opts Options
	done chan struct{}
	mu   sync.Mutex
	n    int
	reqs []Request
}

// Start starts a server; Close stops it.
func Start(o Options) *Server {
	s := &Server{opts: o, done: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// TB is the part of testing.TB New needs.
type TB interface {
	Helper()
	Cleanup(func())
}

// New starts a server playing steps, closed when the test ends.
func New(t TB, steps ...Step) *Server {
	t.Helper()
	s := Start(Options{Steps: steps})
	t.Cleanup(s.Close)
	return s
}

// Close releases hanging requests, then shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.Server.Close()
}

// BaseURL is the endpoint root a provider's client is given (its
// *_BASE_URL or OLLAMA_HOST): the server's URL, with /v1 for openai.
func (s *Server) BaseURL(provider string) string {
	if provider == "openai" || provider == "openai-responses" {
		return s.URL + "/v1"
	}
	return s.URL
}

// Requests returns the requests served so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Header: s.mask(r.Header), Raw: string(data), At: time.Now()}
	_ = json.Unmarshal(data, &req.Body)
	req.Provider, req.Model, req.Stream = route(r.URL.Path, req.Body)
	s.mu.Lock()
	s.n++
	n := s.n
	if !s.opts.Forget {
		s.reqs = append(s.reqs, req)
	}
	s.mu.Unlock()

	if status, msg := s.check(r, &req); status != 0 {
		writeError(w, req.Provider, status, msg, nil)
		return
	}
	st := s.step(n, &req)
	if st.Delay > 0 {
		select {
		case <-time.After(st.Delay):
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	switch {
	case st.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case st.Handle != nil:
		st.Handle(w, r)
	case st.Error != "":
		writeError(w, req.Provider, cmp(st.Status, 500), st.Error, st.Header)
	case st.Answer != nil:
		writeAnswer(w, &req, st.Status, st.Header, st.Answer)
	default:
		setHeader(w, st.Header, "application/json")
		w.WriteHeader(cmp(st.Status, 200))
		io.WriteString(w, st.Body)
	}
}

func (s *Server) step(n int, req *Request) Step {
	switch {
	case s.opts.Next != nil:
		return s.opts.Next(n, req)
	case len(s.opts.Steps) == 0:
		return Step{Answer: &Answer{Text: "OK."}}
	}
	return s.opts.Steps[min(n, len(s.opts.Steps))-1]
}

// route tells the provider, model and streaming of a request from its path
// and body.
func route(path string, body map[string]any) (provider, model string, stream bool) {
	model, _ = body["model"].(string)
	streamField, set := body["stream"].(bool)
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return "openai", model, streamField
	case strings.HasSuffix(path, "/responses"), strings.HasSuffix(path, "/responses/compact"):
		return "openai-responses", model, streamField
	case path == "/v1/messages":
		return "anthropic", model, streamField
	case strings.HasSuffix(path, "/api/chat"):
		return "ollama", model, streamField || !set
	case strings.HasPrefix(path, "/model/"):
		model, stream, _ := bedrockRoute(path)
		return "bedrock", model, stream
	case strings.Contains(path, "/models/"):
		_, m, _ := strings.Cut(path, "/models/")
		m, method, _ := strings.Cut(m, ":")
		return "gemini", m, method == "streamGenerateContent"
	}
	return "", model, false
}

// check refuses what the real API refuses: an unknown path, a body that is
// no JSON object, a missing key, and each provider's required fields.
func (s *Server) check(r *http.Request, req *Request) (int, string) {
	switch {
	case req.Provider == "":
		return http.StatusNotFound, "no such endpoint: " + req.Path
	case r.Method != http.MethodPost:
		return http.StatusMethodNotAllowed, "POST only"
	case req.Body == nil:
		return http.StatusBadRequest, "the request body is not a JSON object"
	case req.Provider == "bedrock":
		if status, msg := bedrockCheck(r, req); status != 0 {
			return status, msg
		}
		if s.opts.Key != "" && !bedrockSigned(r, []byte(req.Raw), s.opts.Key) {
			return http.StatusForbidden, "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
		}
		return 0, ""
	case s.opts.Key != "" && !keyed(req.Provider, r.Header, s.opts.Key):
		return http.StatusUnauthorized, "invalid API key"
	}
	msgs, _ := req.Body["messages"].([]any)
	switch req.Provider {
	case "openai-responses":
		return checkResponses(req.Body)
	case "anthropic":
		if _, ok := req.Body["max_tokens"].(float64); !ok {
			return http.StatusBadRequest, "max_tokens: Field required"
		}
		lead, status, msg := checkAnthropicCompaction(msgs)
		if status != 0 {
			return status, msg
		}
		want := "user"
		if lead {
			want = "assistant" // the compaction opens the history
		}
		for _, m := range msgs {
			role, _ := m.(map[string]any)["role"].(string)
			if role != want {
				return http.StatusBadRequest, `messages: roles must alternate between "user" and "assistant", the first being "user"`
			}
			want = map[string]string{"user": "assistant", "assistant": "user"}[role]
		}
		fallthrough
	case "openai", "ollama":
		if req.Model == "" {
			return http.StatusBadRequest, "model: Field required"
		}
		if len(msgs) == 0 {
			return http.StatusBadRequest, "messages: Field required"
		}
	case "gemini":
		if c, _ := req.Body["contents"].([]any); len(c) == 0 {
			return http.StatusBadRequest, "* GenerateContentRequest.contents: contents is not specified"
		}
	}
	return 0, ""
}

// keyed reports whether h carries key where provider takes it.
func keyed(provider string, h http.Header, key string) bool {
	switch provider {
	case "openai", "openai-responses":
		return h.Get("Authorization") == "Bearer "+key
	case "anthropic":
		return h.Get("X-Api-Key") == key
	case "gemini":
		return h.Get("X-Goog-Api-Key") == key
	}
	return true
}

// mask returns h with the key replaced by [KEY], and any other credential
// by [SECRET].
func (s *Server) mask(h http.Header) http.Header {
	out := h.Clone()
	for k, vs := range out {
		for i, v := range vs {
			if s.opts.Key != "" && strings.Contains(v, s.opts.Key) {
				vs[i] = strings.ReplaceAll(v, s.opts.Key, "[KEY]")
				continue
			}
			switch http.CanonicalHeaderKey(k) {
			case "Authorization":
				scheme, _, _ := strings.Cut(v, " ")
				vs[i] = scheme + " [SECRET]"
			case "X-Api-Key", "X-Goog-Api-Key", "X-Amz-Security-Token":
				vs[i] = "[SECRET]"
			}
		}
	}
	return out
}

func setHeader(w http.ResponseWriter, h map[string]string, contentType string) {
	w.Header().Set("Content-Type", contentType)
	for k, v := range h {
		w.Header().Set(k, v)
	}
}

func cmp(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("providertest: %v", err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
