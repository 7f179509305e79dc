package transcript

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Staged input comes back as it went in, held in memory or spilled to a
// file, and a bad line stops staging before anything is yielded.
func TestStage(t *testing.T) {
	in := `{"role":"user","content":"hi"}
{"role":"assistant","contents":[],"tool_calls":[{"id":"c1","name":"f","arguments":"{\"a\": 1}"}]}
{"role":"tool","tool_call_id":"c1","name":"f","contents":["ok"],"is_error":true}
{"role":"assistant","content":"` + strings.Repeat("long ", 40000) + `"}
{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"x","message":{"role":"user","contents":["é\u2028"]},"metadata":{"attribute":["merged"],"timing":{"creation":5,"llmEnd":7},"aux":{"k":{"n":[1,2.50]}}}}
`
	var want []string
	dec := NewDecoder(strings.NewReader(in))
	for {
		r, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(AppendJSON(nil, &r)))
	}
	for _, memory := range []int{DefaultStageMemory, 0, 300} {
		dec := NewDecoder(strings.NewReader(in))
		edits := 0
		s, err := Stage(dec.Stream(), func(*Record) error { edits++; return nil }, memory)
		if err != nil {
			t.Fatal(err)
		}
		if spilled := memory < 1000000; s.Spilled() != spilled {
			t.Errorf("memory %d: spilled %v, want %v", memory, s.Spilled(), spilled)
		}
		var got []string
		for {
			r, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(AppendJSON(nil, &r)))
		}
		s.Close()
		if strings.Join(got, "\n") != strings.Join(want, "\n") || edits != len(want) {
			t.Errorf("memory %d: %d edits, got\n%s\nwant\n%s", memory, edits, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	dec = NewDecoder(strings.NewReader(in + "{\"role\":\"robot\",\"content\":\"x\"}\n"))
	if _, err := Stage(dec.Stream(), nil, 0); err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("a bad fifth line: %v, want an error naming line 6", err)
	}
	var ie *InputError
	dec = NewDecoder(strings.NewReader("{"))
	if _, err := Stage(dec.Stream(), nil, 0); !errors.As(err, &ie) {
		t.Errorf("bad JSON: %v, want an InputError", err)
	}
}

// Spilled reports whether the input went to a temporary file.
func (s *Staged) Spilled() bool { return s.file != nil }
