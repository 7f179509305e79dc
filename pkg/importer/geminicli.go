package importer

// Gemini CLI sessions: ~/.gemini/tmp/<projectHash>/chats/session-*.jsonl,
// a metadata line {sessionId, projectHash, startTime, kind}, then message
// records {id, timestamp, type: user|gemini|info|error|warning, content,
// toolCalls, thoughts, tokens, model}, and control lines: {"$rewindTo": id}
// drops that message and every one after it, {"$set": {...}} changes the
// metadata. Sub-agents write <parentSessionId>/<id>.jsonl. Files before
// the JSONL format are one JSON object {sessionId, ..., messages: [...]}.
// Read in two passes: the index (rewinds applied), then the messages.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type geminiCLI struct{}

// It reads a grown file from the last import's cursor, with no state of
// its own.
var _ Resumer = geminiCLI{}

func (geminiCLI) Name() string  { return "gemini-cli" }
func (geminiCLI) Growing() bool { return true }
func (geminiCLI) Match(p string) bool {
	b := filepath.Base(p)
	inChats := strings.Contains(filepath.ToSlash(p), "/chats/")
	return strings.HasPrefix(b, "session-") && (strings.HasSuffix(b, ".jsonl") || strings.HasSuffix(b, ".json")) ||
		inChats && strings.HasSuffix(b, ".jsonl")
}

type gemLine struct {
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Kind        string          `json:"kind"`
	Summary     string          `json:"summary"`
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	RewindTo    *string         `json:"$rewindTo"`
	Set         json.RawMessage `json:"$set"`
	Messages    json.RawMessage `json:"messages"`
	Model       string          `json:"model"`
}

type gemMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
	Thoughts json.RawMessage `json:"thoughts"`
	Tokens   json.RawMessage `json:"tokens"`
	Model    string          `json:"model"`
}

// gemRef is a message of the index: 24 bytes, its id hashed, its text
// read back from the file when walked.
type gemRef struct {
	id  uint64 // idHash of its id
	off int64
	n   int32
	// line is its line; negated for a compression's $set line, whose first
	// message is the summary.
	line int32
}

func (g geminiCLI) Decode(src *Source, emit func(*Session) error) error {
	return g.read(src, nil, emit)
}

// Resume needs no state of its own: the messages past the offset are
// those a read of the whole file would add, unless a line names one
// before it.
func (g geminiCLI) Resume(src *Source, at At, emit func(*Session) error) error {
	return g.read(src, &at, emit)
}

// read indexes the messages past at (all of them when at is nil) and
// emits the session, whose walk reads them back.
func (geminiCLI) read(src *Source, at *At, emit func(*Session) error) error {
	s := &Session{}
	if at != nil {
		// The session's own line is the file's first.
		err := eachLine(src, src.Reader(), 0, 0, func(l line) error {
			var h gemLine
			if json.Unmarshal(l.text, &h) == nil && h.SessionID != "" {
				s.ID, s.Meta.Project = h.SessionID, h.ProjectHash
				if h.Kind == "subagent" {
					s.Meta.Parent = filepath.Base(filepath.Dir(src.Path))
				}
			}
			return errStop
		})
		if err != nil && err != errStop {
			return err
		}
	}
	refs, legacy, err := gemIndex(src, at, s)
	if err != nil {
		return err
	}
	if legacy && at != nil {
		return errRestart
	}
	if legacy {
		if refs, err = gemLegacy(src, s); err != nil {
			return err
		}
	}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src.Path), ".jsonl"), ".json")
	}
	s.Walk = func(skip int, fn func(*Entry) error) error {
		if at != nil {
			skip = 0 // the refs are those past the cursor
		}
		return gemWalk(src, refs, skip, fn)
	}
	return emit(s)
}

// gemIndex is the first pass over the lines past at: the messages, the
// rewinds applied, and what the lines say of the session; legacy when the
// file is one JSON object (gemLegacy reads it).
func gemIndex(src *Source, at *At, s *Session) (refs []gemRef, legacy bool, err error) {
	var gc gemCompression
	err = eachLineAt(src, at, func(l line) error {
		var h gemLine
		if err := json.Unmarshal(l.text, &h); err != nil {
			if l.n == 1 && strings.HasSuffix(src.Path, ".json") {
				legacy = true
				return errStop
			}
			src.Skip(inputErr(l.n, "", "skipped: not a Gemini CLI session line: %v", err))
			return nil
		}
		switch {
		case h.RewindTo != nil:
			to := idHash(*h.RewindTo)
			i := slices.IndexFunc(refs, func(r gemRef) bool { return r.id == to })
			switch {
			case i >= 0:
				refs = refs[:i]
			case at != nil:
				return errRestart // behind the cursor
			}
		case len(h.Set) > 0:
			var set gemLine
			_ = json.Unmarshal(h.Set, &set)
			if set.Summary != "" {
				s.Meta.Title = set.Summary
			}
			if len(set.Messages) > 0 {
				if at != nil {
					return errRestart // it names messages before the cursor
				}
				refs = gc.set(src, refs, set.Messages, l)
			}
		case h.Type != "" && h.ID != "":
			if s.Meta.Model == "" && at == nil {
				// the first said (read from the cursor, the first record has it)
				s.Meta.Model = h.Model
			}
			refs = append(refs, gemRef{id: idHash(h.ID), off: l.off, n: int32(l.end - l.off), line: int32(l.n)})
		case h.SessionID != "" && len(h.Messages) > 0:
			legacy = true
			return errStop
		case h.SessionID != "":
			s.ID, s.Meta.Project = h.SessionID, h.ProjectHash
			if h.Kind == "subagent" {
				s.Meta.Parent = filepath.Base(filepath.Dir(src.Path))
			}
			if h.Summary != "" {
				s.Meta.Title = h.Summary
			}
		default:
			src.Note("line of no known kind")
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, false, err
	}
	return refs, legacy, nil
}

// gemWalk reads back the messages refs index, the first skip but for
// their ids.
func gemWalk(src *Source, refs []gemRef, skip int, fn func(*Entry) error) error {
	var buf []byte
	rd := seqReader{src: src}
	for k, r := range refs {
		e := &Entry{Line: int(max(r.line, -r.line))}
		if r.line != 0 {
			e.Next = Point{Offset: r.off + int64(r.n), Line: e.Line}
		}
		if k >= skip-1 {
			buf = slices.Grow(buf[:0], int(r.n))[:r.n]
			if err := rd.read(buf, r.off); err != nil {
				return err
			}
			var m gemMessage
			// a legacy file's message may follow its comma
			text := bytes.TrimLeft(buf, ", \t\r\n")
			if r.line < 0 {
				text = gemSummary(text)
			}
			if err := json.Unmarshal(text, &m); err != nil {
				return inputErr(e.Line, "", "not a Gemini CLI message: %v", err)
			}
			e.ID, e.Time = m.ID, parseTime(m.Timestamp)
			if k >= skip {
				noteBadUTF8(src, text)
			}
			switch {
			case k < skip:
			case r.line < 0:
				texts, _ := gemParts(src, m.Content)
				e.Records = []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSummary,
					Contents: []string{joinTexts(texts)}}}}
			default:
				e.Records = gemRecords(src, &m)
			}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// gemLegacy indexes a session file of one JSON object {sessionId,
// projectHash, summary, messages: [...]} as a stream: each message's place
// in the file, one message decoded at a time.
func gemLegacy(src *Source, s *Session) ([]gemRef, error) {
	var refs []gemRef
	dec := json.NewDecoder(&counted{r: src.Reader(), src: src})
	bad := func(err error) error { return sessionErr(src, dec, "Gemini CLI", err) }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad(fmt.Errorf("no JSON object (%v)", err))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		var v any
		switch t {
		case "sessionId":
			v = &s.ID
		case "projectHash":
			v = &s.Meta.Project
		case "summary":
			v = &s.Meta.Title
		case "messages":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil, bad(fmt.Errorf("messages is no array (%v)", err))
			}
			for dec.More() {
				off := dec.InputOffset()
				var h struct {
					ID    string `json:"id"`
					Model string `json:"model"`
				}
				if err := dec.Decode(&h); err != nil {
					return nil, inputErr(lineAt(src, off), fmt.Sprintf("messages[%d]", len(refs)), "%v", err)
				}
				if s.Meta.Model == "" {
					s.Meta.Model = h.Model
				}
				refs = append(refs, gemRef{id: idHash(h.ID), off: off, n: int32(dec.InputOffset() - off)})
			}
			if _, err := dec.Token(); err != nil {
				return nil, bad(err)
			}
			continue
		default:
			v = new(json.RawMessage)
		}
		if err := dec.Decode(v); err != nil {
			return nil, bad(err)
		}
	}
	return refs, nil
}

// gemParts reads a PartListUnion: a string, a part or a list of them.
func gemParts(src *Source, raw json.RawMessage) (texts []string, responses []json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		parts = []json.RawMessage{raw}
	}
	for _, p := range parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			texts = append(texts, s)
			continue
		}
		var part struct {
			Text             *string         `json:"text"`
			Thought          bool            `json:"thought"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
			InlineData       json.RawMessage `json:"inlineData"`
			FileData         json.RawMessage `json:"fileData"`
		}
		_ = json.Unmarshal(p, &part)
		switch {
		case part.Thought:
			src.Note("thought part")
		case part.Text != nil:
			texts = append(texts, *part.Text)
		case part.FunctionResponse != nil:
			responses = append(responses, part.FunctionResponse)
		case part.InlineData != nil:
			src.Note("inlineData")
		case part.FileData != nil:
			src.Note("fileData")
		default:
			src.Note("part of no known kind")
		}
	}
	return texts, responses
}

func gemRecords(src *Source, m *gemMessage) []transcript.Record {
	texts, _ := gemParts(src, m.Content)
	switch m.Type {
	case "user":
		if len(texts) == 0 {
			return nil
		}
		return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: texts}}}
	case "gemini":
	default:
		src.Note(m.Type + " message")
		return nil
	}
	a := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: texts}}
	var results []transcript.Record
	for _, tc := range m.ToolCalls {
		a.Message.ToolCalls = append(a.Message.ToolCalls, transcript.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: arguments(tc.Args)})
		if len(tc.Result) == 0 || string(tc.Result) == "null" {
			continue // interrupted: the call stays without a result
		}
		_, resp := gemParts(src, tc.Result)
		text := ""
		for _, r := range resp {
			var fr struct {
				Response struct {
					Output *string `json:"output"`
					Error  *string `json:"error"`
				} `json:"response"`
			}
			if json.Unmarshal(r, &fr) == nil && fr.Response.Output != nil {
				text += *fr.Response.Output
			} else if fr.Response.Error != nil {
				text += *fr.Response.Error
			} else {
				text += string(compactRaw(r))
			}
		}
		results = append(results, transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: tc.ID,
			Name: tc.Name, Contents: []string{text}, IsError: tc.Status == "error"}})
	}
	if len(texts) == 0 && len(a.Message.ToolCalls) == 0 {
		return nil
	}
	if a.Message.Contents == nil {
		a.Message.Contents = []string{}
	}
	a.Metadata.Aux = map[string]json.RawMessage{"provider": auxJSON("gemini")}
	if m.Model != "" {
		a.Metadata.Aux["model"] = auxJSON(m.Model)
	}
	if len(m.Tokens) > 0 && string(m.Tokens) != "null" {
		a.Metadata.Aux["usage"] = compactRaw(m.Tokens)
	}
	if len(m.Thoughts) > 0 && string(m.Thoughts) != "null" && string(m.Thoughts) != "[]" {
		// Thought summaries, no signatures: nothing to send back, kept here.
		a.Metadata.Aux["thoughts"] = compactRaw(m.Thoughts)
	}
	return append([]transcript.Record{a}, results...)
}
