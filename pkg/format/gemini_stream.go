package format

// Gemini's streamed generateContent (models/M:streamGenerateContent?alt=sse):
//   https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
// server-sent events, each a GenerateContentResponse chunk: the first
// candidate's parts piece by piece, its finishReason and the usage on the
// last.

import (
	"encoding/json"
	"strings"
)

// geminiStream assembles a streamed answer into the GenerateContentResponse
// the same call returns without streaming. It reads the events' JSON as the
// server sent it (the SDK's own types would reorder a function call's
// arguments and reformat its numbers): the first candidate's parts in order,
// adjacent text parts joined (a stream splits one text part into many), and
// of every other field the last value sent.
type geminiStream struct {
	// finished: an event carried a finish reason, or the prompt feedback
	// of a blocked prompt; a stream cut before that is truncated.
	finished bool
	top      map[string]json.RawMessage
	cand     map[string]json.RawMessage
	role     json.RawMessage
	parts    []map[string]json.RawMessage
	// texts gathers the text of a part that later chunks continue, by
	// part index, so each piece is decoded once and the whole encoded once
	// in body.
	texts map[int]*strings.Builder
}

// Add implements StreamAssembler: data is one event's, a
// GenerateContentResponse chunk. It passes no text on: pkg/llm's transport
// is the genai SDK, which reads the stream and decodes each chunk into its
// own values as it arrives; their text is what goes on, and the events as
// sent come here once the SDK has read them all.
func (s *geminiStream) Add(_ string, data []byte, _ func(string)) (end bool, err error) {
	var chunk map[string]json.RawMessage
	if err := json.Unmarshal(data, &chunk); err != nil {
		return false, BadStream("gemini", err)
	}
	if s.top == nil {
		s.top = map[string]json.RawMessage{}
	}
	for k, v := range chunk {
		if k != "candidates" {
			s.top[k] = v
		}
	}
	if _, ok := chunk["promptFeedback"]; ok {
		s.finished = true
	}
	var cands []map[string]json.RawMessage
	if err := json.Unmarshal(chunk["candidates"], &cands); err != nil && len(chunk["candidates"]) > 0 {
		return false, BadStream("gemini", err)
	}
	if len(cands) == 0 || cands[0] == nil {
		return false, nil
	}
	if s.cand == nil {
		s.cand = map[string]json.RawMessage{}
	}
	for k, v := range cands[0] {
		if k != "content" {
			s.cand[k] = v
		}
	}
	if r, ok := cands[0]["finishReason"]; ok && string(r) != `""` && string(r) != "null" {
		s.finished = true
	}
	var content struct {
		Role  json.RawMessage              `json:"role"`
		Parts []map[string]json.RawMessage `json:"parts"`
	}
	if c, ok := cands[0]["content"]; ok {
		if err := json.Unmarshal(c, &content); err != nil {
			return false, BadStream("gemini", err)
		}
	}
	if len(content.Role) > 0 {
		s.role = content.Role
	}
	for _, p := range content.Parts {
		if n := len(s.parts); n > 0 && geminiTextPart(s.parts[n-1]) && geminiTextPart(p) &&
			string(s.parts[n-1]["thought"]) == string(p["thought"]) {
			last := s.parts[n-1]
			text := s.texts[n-1]
			if text == nil {
				var a string
				_ = json.Unmarshal(last["text"], &a)
				text = &strings.Builder{}
				text.WriteString(a)
				if s.texts == nil {
					s.texts = map[int]*strings.Builder{}
				}
				s.texts[n-1] = text
			}
			var b string
			_ = json.Unmarshal(p["text"], &b)
			text.WriteString(b)
			if sig, ok := p["thoughtSignature"]; ok {
				last["thoughtSignature"] = sig
			}
			continue
		}
		s.parts = append(s.parts, p)
	}
	return false, nil
}

// geminiTextPart reports whether a part holds text and nothing else (a
// thought flag and signature aside).
func geminiTextPart(p map[string]json.RawMessage) bool {
	if _, ok := p["text"]; !ok {
		return false
	}
	for k := range p {
		if k != "text" && k != "thought" && k != "thoughtSignature" {
			return false
		}
	}
	return true
}

// Body implements StreamAssembler. The SDK ends a stream cut between two
// events as if it were complete: without a finish reason, it is not.
func (s *geminiStream) Body() ([]byte, error) {
	if !s.finished {
		return nil, ErrStreamCut
	}
	out := map[string]json.RawMessage{}
	for k, v := range s.top {
		out[k] = v
	}
	if s.cand != nil {
		role := s.role
		if role == nil {
			role = json.RawMessage(`"model"`)
		}
		for i, text := range s.texts {
			t, err := marshalNoEscape(text.String())
			if err != nil {
				return nil, err
			}
			s.parts[i]["text"] = t
		}
		parts := s.parts
		if parts == nil {
			parts = []map[string]json.RawMessage{}
		}
		content, err := marshalNoEscape(map[string]any{"role": role, "parts": parts})
		if err != nil {
			return nil, err
		}
		cand := map[string]json.RawMessage{"content": content}
		for k, v := range s.cand {
			cand[k] = v
		}
		if out["candidates"], err = marshalNoEscape([]any{cand}); err != nil {
			return nil, err
		}
	}
	return marshalNoEscape(out)
}
