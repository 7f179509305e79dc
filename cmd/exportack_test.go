package cmd

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

// The token carries what --commit-cursor moves of the store's marks (the
// codec's own tests are pkg/export's), and anything but a token is a usage
// error naming the flag.
func TestAckTokenMarks(t *testing.T) {
	marks := []store.Mark{{Conversation: "demo", Sink: "s3", Created: 17, To: store.Cursor{Seq: 5, Held: 5}}}
	c, err := parseAck(store.AckToken("s3", marks))
	if err != nil || c.sink != "s3" || !reflect.DeepEqual(c.marks, marks) {
		t.Fatalf("parsed %+v, %v; want sink s3 and %+v", c, err, marks)
	}
	if _, err := parseAck("ack1.!!!!"); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--commit-cursor") {
		t.Fatalf("a damaged token: %v, want a usage error", err)
	}
}

// export --ack moves no cursor and prints the command that does; run, it
// moves the cursor once, and an older token after it moves nothing.
func TestExportAckRun(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := testFactory(t, "")
	exportAppend(t, f, "demo", "hello", "hi there")
	s, _ := f.Store(ctx)
	ack := func(args ...string) string {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if err := runExport(t, f, append([]string{"--incremental", "--sink", "up", "--ack"}, args...)...); err != nil {
			t.Fatal(err)
		}
		_, tok, ok := strings.Cut(strings.TrimSpace(errOut.String()), "convo export --commit-cursor ")
		if !ok {
			t.Fatalf("no token on stderr: %q", errOut)
		}
		return tok
	}
	commit := func(tok string, want string) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if err := runExport(t, f, "--commit-cursor", tok); err != nil || !strings.Contains(errOut.String(), want) {
			t.Fatalf("commit: %v, stderr %q; want %q", err, errOut, want)
		}
		if out.Len() > 0 {
			t.Fatalf("--commit-cursor wrote to stdout: %q", out)
		}
	}
	cursor := func() int64 {
		t.Helper()
		seq, err := s.Cursor(ctx, "demo", "up")
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}

	old := ack("-c", "demo")
	if n := strings.Count(out.String(), "\n"); n != 2 || cursor() != 0 {
		t.Fatalf("--ack sent %d records and moved the cursor to %d; want 2 sent, nothing moved", n, cursor())
	}
	exportAppend(t, f, "demo", "more")
	tok := ack("-c", "demo")
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("the second --ack export sent %d records, want all 3 again", n)
	}
	commit(tok, "moved 1 of the 1")
	seq := cursor()
	commit(tok, "moved 0 of the 1")
	commit(old, "moved 0 of the 1")
	if cursor() != seq || seq == 0 {
		t.Fatalf("cursor %d after repeated and stale commits, want %d", cursor(), seq)
	}
	if ack("--all"); out.Len() != 0 {
		t.Fatalf("after the commit an export sent %q", out)
	}
}
