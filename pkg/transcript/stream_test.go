package transcript

import (
	"errors"
	"strings"
	"testing"
)

// Slice yields its records in order, as pointers into the slice, and
// stops at yield's error.
func TestSlice(t *testing.T) {
	recs := []Record{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	var got []string
	stop := errors.New("stop")
	err := Slice(recs...)(func(r *Record) error {
		if r != &recs[len(got)] {
			t.Errorf("record %d is a copy", len(got))
		}
		got = append(got, r.ID)
		if r.ID == "b" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || strings.Join(got, "") != "ab" {
		t.Fatalf("got %q, err %v", got, err)
	}
	if err := Slice()(func(*Record) error { t.Fatal("yielded from nothing"); return nil }); err != nil {
		t.Fatal(err)
	}
}

// A decoder's stream ends cleanly at the end of its input and returns a
// bad line's error after yielding the lines before it.
func TestDecoderStream(t *testing.T) {
	n := 0
	count := func(*Record) error { n++; return nil }
	ok := `{"role":"user","content":"a"}` + "\n" + `{"role":"assistant","content":"b"}` + "\n"
	if err := NewDecoder(strings.NewReader(ok)).Stream()(count); err != nil || n != 2 {
		t.Fatalf("n = %d, err %v", n, err)
	}
	n = 0
	if err := NewDecoder(strings.NewReader(ok + "{\n")).Stream()(count); err == nil || n != 2 {
		t.Fatalf("bad line: n = %d, err %v", n, err)
	}
}
