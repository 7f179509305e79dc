package main

// Issue 27 (Hardening II), end to end.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func bigUser(text string) string { return `{"role":"user","content":"` + text + `"}` + "\n" }

// TestWhatConvoWritesReadsBack: a merge that would make a record no reader
// takes back is refused, whether the record comes on stdin or as TEXT,
// and the store is left as it was; what was stored reads back through
// get | append and through the markdown round trip.
func TestWhatConvoWritesReadsBack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	three := strings.Repeat("x", 3<<20)
	if _, errOut, code := run(t, bigUser(three), "--db", db, "append", "-q", "-c", "c"); code != 0 {
		t.Fatalf("first 3 MB message: exit %d: %s", code, errOut)
	}
	before := dump(t, db, "c")
	_, errOut, code := run(t, bigUser(three), "--db", db, "append", "-c", "c")
	if code != 3 || !strings.Contains(errOut, "line 1: message: merging this user record into the user record") {
		t.Fatalf("second 3 MB message on stdin: exit %d, stderr %.300q; want 3 naming line 1", code, errOut)
	}
	// TEXT has no line: the store refuses the merge itself.
	_, errOut, code = run(t, "", "--db", db, "append", "-c", "c", "--role", "user", three)
	if code != 3 || !strings.Contains(errOut, "message: merging") {
		t.Fatalf("second 3 MB message as TEXT: exit %d, stderr %.300q; want 3", code, errOut)
	}
	if dump(t, db, "c") != before {
		t.Fatal("a refused merge changed the store")
	}

	// A record near the limit whose text markdown's reader escapes six
	// times over (< as \u003c) still reads back, both ways.
	angles := strings.Repeat("<&>", 1<<20)
	if _, errOut, code := run(t, `{"role":"assistant","content":"`+angles+`"}`+"\n", "--db", db, "append", "-q", "-c", "c"); code != 0 {
		t.Fatalf("3 MB of <&>: exit %d: %s", code, errOut)
	}
	got := dump(t, db, "c")
	if _, errOut, code := run(t, got, "--db", db, "append", "-q", "-c", "copy"); code != 0 {
		t.Fatalf("get | append: exit %d: %s", code, errOut)
	}
	if strings.ReplaceAll(dump(t, db, "copy"), `"conversation":"copy"`, `"conversation":"c"`) != got {
		t.Fatal("get | append changed the records")
	}
	md, errOut, code := run(t, "", "--db", db, "export", "-c", "c", "--format", "markdown")
	if code != 0 {
		t.Fatalf("export markdown: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, md, "--db", db, "append", "-q", "-c", "md", "--format", "markdown"); code != 0 {
		t.Fatalf("markdown round trip: exit %d: %.300s", code, errOut)
	}
	if strings.ReplaceAll(dump(t, db, "md"), `"conversation":"md"`, `"conversation":"c"`) != got {
		t.Fatal("the markdown round trip changed the records")
	}
}

// TestLongSummaryLineReadsBack: a summary of many records lists more ids
// than the line limit; its line reads back as any other.
func TestLongSummaryLineReadsBack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	var b strings.Builder
	b.WriteString(`{"message":{"role":"summary","contents":["They planned the Lisbon trip."]},"metadata":{"summaryIds":[`)
	for i := range 300_000 { // 8.7 MB of ids: twice the record limit
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"01JRZJ166J%016d"`, i)
	}
	b.WriteString("]}}\n")
	in := bigUser("hi") + b.String() + bigUser("and then?")
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", "s"); code != 0 {
		t.Fatalf("append: exit %d: %.300s", code, errOut)
	}
	got := dump(t, db, "s")
	if _, errOut, code := run(t, got, "--db", db, "append", "-q", "-c", "s2"); code != 0 {
		t.Fatalf("get | append: exit %d: %.300s", code, errOut)
	}
	if out, errOut, code := run(t, got, "export"); code != 0 || out != got {
		t.Fatalf("export on stdin: exit %d: %.300s", code, errOut)
	}
}

// TestTransformsRefuseWhatAppendRefuses: summarize and export without -c
// read through the decoder append uses, with its limits.
func TestTransformsRefuseWhatAppendRefuses(t *testing.T) {
	deep := strings.Repeat(`{\"a\":`, 100_000) + "1" + strings.Repeat("}", 100_000)
	in := bigUser("q") + `{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":"` + deep + `"}]}` + "\n"
	for _, args := range [][]string{{"append"}, {"export"}, {"summarize"}, {"render", "--provider", "openai"}} {
		out, errOut, code := run(t, in, args...)
		if code != 3 || !strings.Contains(errOut, "line 2: message.tool_calls[0].arguments: nested more than 10000 levels") || out != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %.200q; want 3 naming line 2", args, code, len(out), errOut)
		}
	}
}

// TestUnknownKeysNamed: an unknown key in a record is exit 3; in an
// OpenAI-style message it is dropped, and stderr names it.
func TestUnknownKeysNamed(t *testing.T) {
	_, errOut, code := run(t, `{"message":{"role":"user","contents":["x"]},"meta":{"aux":{"k":1}}}`+"\n", "append")
	if code != 3 || !strings.Contains(errOut, "line 1: meta: unknown key (metadata?)") {
		t.Errorf("record: exit %d, stderr %q", code, errOut)
	}
	out, errOut, code := run(t, `{"role":"user","content":"hi"}`+"\n"+`{"role":"assistant","content":"x","refusal":"no","annotations":[]}`+"\n", "append")
	if code != 0 || !strings.Contains(errOut, "line 2: refusal dropped") || strings.Contains(errOut, "annotations") || strings.Count(out, "\n") != 2 {
		t.Errorf("OpenAI message: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// TestEveryEntranceHoldsTheLimit: annotate, fork and a summarizer may not
// make a record over the limit either; each is exit 3, the store as it was.
func TestEveryEntranceHoldsTheLimit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	// 10 bytes under the limit: {"role":"user","contents":[""]} is 31.
	in := bigUser(strings.Repeat("x", transcript.MaxRecordBytes-31-10))
	for i := range 6 {
		in += fmt.Sprintf(`{"role":%q,"content":"turn %d"}`+"\n", []string{"assistant", "user"}[i%2], i)
	}
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", "c"); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errOut)
	}
	before := dump(t, db, "c")
	for _, args := range [][]string{
		{"annotate", "-c", "c", "--id", strings.SplitN(before, `"`, 5)[3], "--aux", `big="0123456789abcdef"`},
		{"fork", "-c", "c", "--to", "f"}, // aux.forkedFrom takes 43 bytes
		{"summarize", "-c", "c", "--keep-last", "1", "--summarizer", "exec", "--exec", `head -c 5000000 /dev/zero | tr '\0' y`},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", db}, args...)...)
		if code != 3 || !strings.Contains(errOut, "over the 4 MiB limit") {
			t.Errorf("%s: exit %d, stderr %.300q; want 3, over the limit", args[0], code, errOut)
		}
		if dump(t, db, "c") != before {
			t.Fatalf("%s changed the store", args[0])
		}
	}
	if _, _, code := run(t, "", "--db", db, "get", "-c", "f"); code != 4 {
		t.Errorf("get -c f after a refused fork: exit %d, want 4", code)
	}
}
