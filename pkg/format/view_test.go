package format

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// pipeline hands every kept body over in order, across many batches, and
// stops both goroutines on the first error of either side.
func TestPipeline(t *testing.T) {
	const n = 20000
	body := strings.Repeat("x", 90)
	read := func(yield func(transcript.Role, []byte) error) error {
		for i := range n {
			role := transcript.RoleUser
			if i%10 == 9 {
				role = transcript.RoleSystem
			}
			if err := yield(role, []byte(fmt.Sprintf("%06d%s", i, body))); err != nil {
				return err
			}
		}
		return nil
	}
	keep := func(r transcript.Role) bool { return r != transcript.RoleSystem }

	next, got := 0, 0
	err := pipeline(read, keep, func(b []byte) error {
		if next%10 == 9 {
			next++ // a system row, not kept
		}
		if want := fmt.Sprintf("%06d%s", next, body); string(b) != want {
			return fmt.Errorf("got %.6s, want %.6s", b, want)
		}
		next++
		got++
		return nil
	})
	if err != nil || got != n-n/10 {
		t.Fatalf("err %v after %d bodies", err, got)
	}

	boom := errors.New("boom")
	seen := 0
	err = pipeline(read, keep, func([]byte) error {
		if seen++; seen == 5000 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || seen != 5000 {
		t.Fatalf("err %v after %d bodies, want boom after 5000", err, seen)
	}

	readErr := errors.New("disk")
	err = pipeline(func(yield func(transcript.Role, []byte) error) error {
		_ = yield(transcript.RoleUser, []byte("a"))
		return readErr
	}, keep, func([]byte) error { return nil })
	if !errors.Is(err, readErr) {
		t.Fatalf("err %v, want the read error", err)
	}
}

// AddRows renders what AddJSON would, leaves system records out, and the
// summary too with NoSummary.
func TestAddRows(t *testing.T) {
	recs := []string{
		`{"id":"01","conversation":"c","message":{"role":"summary","contents":["They met."]},"metadata":{"summaryIds":["00"],"timing":{"creation":1}}}`,
		`{"id":"02","conversation":"c","message":{"role":"system","contents":["Ignored here."]},"metadata":{"timing":{"creation":1}}}`,
		`{"id":"03","conversation":"c","message":{"role":"user","contents":["Hi"]},"metadata":{"timing":{"creation":1}}}`,
		`{"id":"04","conversation":"c","message":{"role":"assistant","contents":["Hello"]},"metadata":{"timing":{"creation":1}}}`,
	}
	rows := func(yield func(transcript.Role, []byte) error) error {
		for _, r := range recs {
			role := transcript.RoleUser
			for _, x := range []transcript.Role{transcript.RoleSummary, transcript.RoleSystem, transcript.RoleAssistant} {
				if strings.Contains(r, `"role":"`+string(x)+`"`) {
					role = x
				}
			}
			if err := yield(role, []byte(r)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, noSummary := range []bool{false, true} {
		var got, want bytes.Buffer
		r, err := NewRenderer(&got, Request{Provider: "openai", System: []string{"Be brief."}, NoSummary: noSummary})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AddRows(rows); err != nil || r.Close() != nil {
			t.Fatal(err)
		}
		summary := "They met."
		if noSummary {
			summary = ""
		}
		err = Render(&want, Request{Provider: "openai", System: []string{"Be brief."}, Summary: summary, Messages: []transcript.Record{
			{ID: "03", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Hi"}}},
			{ID: "04", Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"Hello"}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("NoSummary %v:\n got %s\nwant %s", noSummary, &got, &want)
		}
		if strings.Contains(got.String(), "Ignored here") || strings.Contains(got.String(), "They met") == noSummary {
			t.Errorf("NoSummary %v: %s", noSummary, &got)
		}
	}
}

// RenderTranscript applies the rules to what it reads and renders the
// view: the latest system record, the latest summary, the records after it;
// an error names the input line.
func TestRenderTranscript(t *testing.T) {
	in := `{"role":"system","content":"Old prompt."}
{"role":"user","content":"Before the summary"}
{"role":"summary","contents":["Earlier talk."],"metadata":{"summaryIds":["01JRZJ166HZFPP405DV1QQB2X8"]}}
{"role":"system","content":"New prompt."}
{"role":"assistant","content":"Hello"}
{"role":"assistant","content":"again"}
`
	var out bytes.Buffer
	if err := RenderTranscript(&out, Request{Provider: "openai"}, strings.NewReader(in), transcript.NewIDs(), func() int64 { return 1 }); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"New prompt.", "Earlier talk.", `"role":"user","content":"..."`, `Hello\n\nagain`} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q: %s", want, got)
		}
	}
	for _, not := range []string{"Old prompt.", "Before the summary"} {
		if strings.Contains(got, not) {
			t.Errorf("output holds %q: %s", not, got)
		}
	}
	out.Reset()
	if err := RenderTranscript(&out, Request{Provider: "openai", NoSummary: true, System: []string{"Mine."}}, strings.NewReader(in), transcript.NewIDs(), func() int64 { return 1 }); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "Earlier talk.") || strings.Contains(got, "New prompt.") || !strings.Contains(got, "Mine.") {
		t.Errorf("--no-summary, --system: %s", got)
	}

	bad := `{"role":"user","content":"Weather?"}
{"role":"assistant","contents":["Sunny."]}
{"role":"tool","tool_call_id":"call_1","content":"18°C"}
`
	err := RenderTranscript(&out, Request{Provider: "openai"}, strings.NewReader(bad), transcript.NewIDs(), func() int64 { return 1 })
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Line != 3 {
		t.Errorf("a result answering no call: %v, want an input error on line 3", err)
	}
}
