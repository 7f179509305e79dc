package cmd

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// summarize --all at a terminal on a store that does not exist, or holds no
// conversation, ends at once with nothing to do, creating nothing: no
// progress bar waits on 0/0.
func TestSummarizeAllNothingStored(t *testing.T) {
	for _, empty := range []bool{false, true} {
		f, out, errOut := testFactory(t, "")
		if empty {
			f.IO.In = strings.NewReader(`{"role":"user","content":"hi"}` + "\n")
			if err := runCmd(t, f, "append", "-q", "-c", "a"); err != nil {
				t.Fatal(err)
			}
			if err := runCmd(t, f, "clear", "-q", "-c", "a", "--yes"); err != nil {
				t.Fatal(err)
			}
			f.quiet = false
		}
		f.IO.SetStdoutTTY(true)
		f.IO.SetStderrTTY(true)
		done := make(chan error, 1)
		go func() { done <- runCmd(t, f, "summarize", "--all") }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("empty store %v: %v", empty, err)
			}
		case <-time.After(2 * time.Minute):
			tail := errOut.String()
			tail = tail[max(0, len(tail)-200):]
			t.Fatalf("empty store %v: summarize --all never ended; stderr ends %q", empty, tail)
		}
		if out.Len() != 0 || !strings.Contains(errOut.String(), "nothing to summarize") {
			t.Errorf("empty store %v: stdout %q, stderr %q", empty, out, errOut)
		}
		if _, err := os.Stat(f.db); !empty && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("summarize --all created the store: %v", err)
		}
	}
}

// Once a PostgreSQL location is noted, stderr masks its passwords, and
// PGPASSWORD's, whatever writes them; a SQLite path notes nothing.
func TestRedactingWriter(t *testing.T) {
	t.Setenv("PGPASSWORD", "env-s3cret")
	var buf strings.Builder
	f := &Factory{}
	w := f.secrets.Writer(&buf)
	f.notePasswords("/tmp/pass=word.db")
	f.notePasswords("postgres://u:user-s3cret@db/x?sslpassword=ssl-s3cret&password=q-s3cret")
	for _, line := range []string{"a user-s3cret b\n", "q-s3cret and ssl-s3cret\n", "env-s3cret\n", "u:user-s3cret@db\n"} {
		if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if strings.Contains(buf.String(), "s3cret") {
		t.Fatalf("stderr holds a password:\n%s", buf.String())
	}
	if strings.Count(buf.String(), "xxxxx") != 5 {
		t.Fatalf("not each password masked:\n%s", buf.String())
	}
}
