package transcript

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseAnnotation(t *testing.T) {
	an, err := ParseAnnotation([]string{"playStart=now", "creation=5"}, []string{`k={"a": [1, 2]}`, "n=1"}, []string{"old"}, 99)
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Message: Message{Role: RoleUser, Contents: []string{"x"}}}
	r.Metadata.Aux = map[string]json.RawMessage{"old": json.RawMessage(`1`), "n": json.RawMessage(`0`)}
	if err := an.Apply(&r); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"","conversation":"","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":5,"playStart":99},"aux":{"k":{"a":[1,2]},"n":1}}}`
	if got := string(AppendJSON(nil, &r)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if an.Empty() {
		t.Error("Empty() on an annotation that changes things")
	}
	if none, _ := ParseAnnotation(nil, nil, nil, 0); !none.Empty() {
		t.Error("an annotation of no flags is not empty")
	}

	for _, tt := range []struct {
		timing, aux, unset []string
		input              bool
		text               string
	}{
		{timing: []string{"playstart=1"}, input: true, text: `--timing: unknown timing key "playstart"`},
		{timing: []string{"playStart"}, text: `--timing "playStart": want KEY=MS`},
		{timing: []string{"playStart=1.5"}, text: `--timing playStart: want milliseconds since the epoch or now, got "1.5"`},
		{aux: []string{"=1"}, text: `--aux "=1": want KEY=JSON`},
		{aux: []string{"k={"}, text: `--aux k: invalid JSON`},
		{unset: []string{""}, text: "--unset-aux: want a KEY"},
	} {
		_, err := ParseAnnotation(tt.timing, tt.aux, tt.unset, 0)
		var ie *InputError
		if err == nil || errors.As(err, &ie) != tt.input || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%v %v %v: %v, want %q (input error: %v)", tt.timing, tt.aux, tt.unset, err, tt.text, tt.input)
		}
	}
}

// Apply refuses an unknown timing key or a negative time and leaves the
// record as it was; removing the last aux key leaves no aux.
func TestAnnotationApply(t *testing.T) {
	r := Record{Metadata: Metadata{Timing: Timing{Creation: 1}, Aux: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}}
	for _, an := range []*Annotation{
		{Timing: map[string]int64{"playBegin": 1}},
		{Timing: map[string]int64{"playEnd": -1}},
	} {
		if err := an.Apply(&r); err == nil || r.Metadata.Timing.PlayEnd != nil {
			t.Errorf("%+v: %v, record %+v", an, err, r.Metadata)
		}
	}
	if err := (&Annotation{UnsetAux: []string{"k"}}).Apply(&r); err != nil || r.Metadata.Aux != nil {
		t.Errorf("unset: %v, aux %v", err, r.Metadata.Aux)
	}
}

// FuzzParseAnnotation: whatever the flags say, a parsed annotation applied
// to a record leaves a record whose canonical form is valid JSON.
func FuzzParseAnnotation(f *testing.F) {
	f.Add("llmEnd=now", "k={\"a\":[1,2.50]}", "old")
	f.Add("creation=5", "s=\"text\"", "")
	f.Add("bogus=1", "k=", "")
	f.Add("playStart=-1", "\xff=1", "\xfe")
	f.Fuzz(func(t *testing.T, timing, aux, unset string) {
		an, err := ParseAnnotation([]string{timing}, []string{aux}, []string{unset}, 1744815823058)
		if err != nil {
			return
		}
		r := Record{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "c",
			Message: Message{Role: RoleUser, Contents: []string{"hi"}}, Metadata: Metadata{Timing: Timing{Creation: 1}}}
		if err := an.Apply(&r); err != nil {
			return
		}
		if b := AppendJSON(nil, &r); !json.Valid(b) {
			t.Fatalf("annotated record is not JSON: %s", b)
		}
	})
}
