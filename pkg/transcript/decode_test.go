package transcript

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestDecoderNamesLines(t *testing.T) {
	in := "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":\"b\"}\r\n{\"role\":\"x\"}\n"
	d := NewDecoder(strings.NewReader(in))
	for range 2 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "line 4: role:") {
		t.Fatalf("err = %v, want line 4", err)
	}
}

func TestDecoderRejectsHugeLine(t *testing.T) {
	huge := `{"role":"user","content":"` + strings.Repeat("x", 5<<20) + `"}`
	in := `{"role":"user","content":"a"}` + "\n" + huge + "\n" + `{"role":"user","content":"b"}` + "\n"
	d := NewDecoder(strings.NewReader(in))
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Next()
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want line 2 too long", err)
	}
}

func TestDecoderLastLineWithoutNewline(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"role":"user","content":"a"}`))
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want EOF", err)
	}
}

// TestAppendJSONMatchesEncodingJSON checks the hand-written encoder against
// encoding/json on awkward strings.
