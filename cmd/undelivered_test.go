package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// failingWriter fails every write as stdout does when its reader is gone
// (EPIPE, SIGPIPE being handled) or its disk is full (ENOSPC).
type failingWriter struct{ errno syscall.Errno }

func (w failingWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: w.errno}
}

// A command whose change committed exits 0 when its stdout is gone, and
// says on stderr that the output was not delivered: a script that retries
// on failure must not store it twice. A command that stored nothing fails:
// silently with 141 on a closed pipe, as if killed by SIGPIPE (git log |
// head), with exit 1 and a message on a full disk.
func TestUndeliveredOutput(t *testing.T) {
	body := `{"id":"chatcmpl-1","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}]}`
	askEnv(t, providertest.Step{Answer: &providertest.Answer{Text: "OK."}}, providertest.Step{Answer: &providertest.Answer{Text: "OK."}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, errno := range []syscall.Errno{syscall.EPIPE, syscall.ENOSPC} {
		t.Run(errno.Error(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "convo.db")
			run := func(stdin string, args ...string) (int, string) {
				io, _, errOut := iostreams.Test(stdin)
				io.Out = failingWriter{errno}
				return Run(context.Background(), append([]string{"--db", db}, args...), io), errOut.String()
			}
			records := func(conv string) int {
				io, out, _ := iostreams.Test("")
				if code := Run(context.Background(), []string{"--db", db, "get", "-c", conv}, io); code != exitcode.OK {
					t.Fatalf("get -c %s: exit %d", conv, code)
				}
				return strings.Count(out.String(), "\n")
			}
			for _, tc := range []struct {
				stdin string
				args  []string
			}{
				{"", []string{"append", "-c", "c", "Hello"}},
				{tripJSONL, []string{"append", "-c", "trip"}},
				{body, []string{"append", "-c", "c", "--from", "openai"}},
				{"", []string{"ask", "-c", "a", "--provider", "openai", "Hi"}},
				{"", []string{"ask", "-c", "a", "--provider", "openai", "--json", "Again"}},
				{"", []string{"annotate", "-c", "c", "--id", "last", "--aux", "k=1"}},
				{"", []string{"summarize", "-c", "trip", "--keep-last", "1"}},
				{tripJSONL, []string{"append", "-q", "-c", "trip2"}}, // -q: nothing to deliver, the note is not printed
				{"", []string{"summarize", "--all", "--keep-last", "1", "--every", "7"}},
				{"", []string{"prune", "--keep-summaries"}},
			} {
				code, stderr := run(tc.stdin, tc.args...)
				if tc.args[1] == "-q" {
					if code != exitcode.OK {
						t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
					}
					continue
				}
				if code != exitcode.OK || !strings.Contains(stderr, "stored") || !strings.Contains(stderr, "not delivered") || !strings.Contains(stderr, errno.Error()) {
					t.Errorf("%v: exit %d, stderr %q; want 0 and a note that the output was not delivered", tc.args, code, stderr)
				}
			}
			if n := records("c"); n != 2 {
				t.Errorf("conversation c holds %d records, want 2", n)
			}
			if n := records("a"); n != 4 {
				t.Errorf("conversation a holds %d records, want 4", n)
			}

			// Nothing stored: the failure stands.
			want, wantStderr := exitcode.Failure, errno.Error()
			if errno == syscall.EPIPE {
				want, wantStderr = exitcode.BrokenPipe, ""
			}
			for _, args := range [][]string{{"get", "-c", "c"}, {"append", "Hello"}, {"rewind", "-c", "c", "--to", "last-user", "--yes"}} {
				code, stderr := run("", args...)
				if code != want || wantStderr == "" && stderr != "" || !strings.Contains(stderr, wantStderr) {
					t.Errorf("%v: exit %d, stderr %q; want %d", args, code, stderr, want)
				}
			}
			if n := records("c"); n != 2 {
				t.Errorf("after a failed rewind, conversation c holds %d records, want 2", n)
			}
		})
	}
}
