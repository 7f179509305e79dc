package llm

// Exchange for Gemini, through google.golang.org/genai: the rendered
// generateContent body is decoded into the SDK's own request types
// (contents, and a GenerateContentConfig for everything else: the SDK's
// config holds systemInstruction, tools, toolConfig, safetySettings and the
// generationConfig fields side by side), and the SDK sends it. Streaming is
// the SDK's GenerateContentStream (streamGenerateContent?alt=sse): each
// event is a GenerateContentResponse whose candidate holds the next parts;
// the last one carries finishReason and the usage.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// Exchange implements Exchanger.
func (c *Gemini) Exchange(ctx context.Context, x Exchange) (Reply, error) {
	model := x.Model
	if model == "" {
		model = c.opts.Model
	}
	contents, config, err := geminiRequest(x.Body)
	if err != nil {
		return Reply{}, fmt.Errorf("gemini: request body: %w", err)
	}
	noContinuation := false
	config.AutomaticContinuation = &noContinuation
	return c.opts.exchange(ctx, "gemini", c.opts.APIKey, x, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		rec := &capture{progress: progress}
		ctx = context.WithValue(ctx, captureKey{}, rec)
		if onText == nil {
			if _, err := c.client.Models.GenerateContent(ctx, model, contents, config); err != nil {
				return nil, geminiError(err, rec)
			}
			return bytes.Clone(rec.body.Bytes()), nil
		}
		for chunk, err := range c.client.Models.GenerateContentStream(ctx, model, contents, config) {
			if err != nil {
				return nil, geminiError(err, rec)
			}
			if len(chunk.Candidates) > 0 && chunk.Candidates[0] != nil && chunk.Candidates[0].Content != nil {
				for _, p := range chunk.Candidates[0].Content.Parts {
					if p != nil && !p.Thought {
						onText(p.Text)
					}
				}
			}
		}
		// The SDK read the whole stream through the recorder: assemble
		// the answer from the events as sent.
		var asm geminiStream
		if err := readSSE(&rec.body, func(ev sseEvent) error { return asm.add(ev.data) }); err != nil {
			return nil, err
		}
		if !asm.finished {
			// The SDK ends a stream cut between two events as if it were
			// complete: without a finish reason, it is not.
			return nil, errTruncated
		}
		return asm.body()
	})
}

// geminiRequest decodes a generateContent body into the SDK's types,
// refusing fields they do not hold rather than dropping them.
func geminiRequest(body []byte) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, nil, err
	}
	var contents []*genai.Content
	if err := strictJSON(top["contents"], &contents); err != nil {
		return nil, nil, fmt.Errorf("contents: %w", err)
	}
	gen := top["generationConfig"]
	delete(top, "contents")
	delete(top, "generationConfig")
	config := &genai.GenerateContentConfig{}
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, nil, err
	}
	if err := strictJSON(rest, config); err != nil {
		return nil, nil, err
	}
	if len(gen) > 0 {
		if err := strictJSON(gen, config); err != nil {
			return nil, nil, fmt.Errorf("generationConfig: %w", err)
		}
	}
	return contents, config, nil
}

func strictJSON(data []byte, v any) error {
	if len(data) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

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
}

// add reads one event's data: a GenerateContentResponse chunk.
func (s *geminiStream) add(data []byte) error {
	var chunk map[string]json.RawMessage
	if err := json.Unmarshal(data, &chunk); err != nil {
		return badBody("gemini", err)
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
		return badBody("gemini", err)
	}
	if len(cands) == 0 || cands[0] == nil {
		return nil
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
			return badBody("gemini", err)
		}
	}
	if len(content.Role) > 0 {
		s.role = content.Role
	}
	for _, p := range content.Parts {
		if n := len(s.parts); n > 0 && geminiTextPart(s.parts[n-1]) && geminiTextPart(p) &&
			string(s.parts[n-1]["thought"]) == string(p["thought"]) {
			last := s.parts[n-1]
			var a, b string
			_ = json.Unmarshal(last["text"], &a)
			_ = json.Unmarshal(p["text"], &b)
			if t, err := encodeJSON(a + b); err == nil {
				last["text"] = t
			}
			if sig, ok := p["thoughtSignature"]; ok {
				last["thoughtSignature"] = sig
			}
			continue
		}
		s.parts = append(s.parts, p)
	}
	return nil
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

func (s *geminiStream) body() ([]byte, error) {
	out := map[string]json.RawMessage{}
	for k, v := range s.top {
		out[k] = v
	}
	if s.cand != nil {
		role := s.role
		if role == nil {
			role = json.RawMessage(`"model"`)
		}
		parts := s.parts
		if parts == nil {
			parts = []map[string]json.RawMessage{}
		}
		content, err := encodeJSON(map[string]any{"role": role, "parts": parts})
		if err != nil {
			return nil, err
		}
		cand := map[string]json.RawMessage{"content": content}
		for k, v := range s.cand {
			cand[k] = v
		}
		if out["candidates"], err = encodeJSON([]any{cand}); err != nil {
			return nil, err
		}
	}
	return encodeJSON(out)
}
