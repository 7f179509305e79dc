//go:build unix

package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// A PATH that is no regular file is refused by name, as a file that is not
// the format's, and the next file imported: a named pipe without a writer
// would block the import in open, one with a writer (or /dev/zero) reads
// as empty by its size.
func TestImportFileRefusesNonRegular(t *testing.T) {
	f, _ := Lookup("claude-code")
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	var warned []string
	im, err := New(context.Background(), openStore(t), Options{Format: f, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join("testdata", "claude-code", "proj", "11111111-2222-3333-4444-555555555555.jsonl")
	done := make(chan struct{})
	var n int
	go func() {
		defer close(done)
		n, err = im.ImportFiles(context.Background(), []string{fifo, good})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// Unblock the open so the test ends; the import hung on the pipe.
		if w, oerr := os.OpenFile(fifo, os.O_WRONLY, 0); oerr == nil {
			w.Close()
		}
		<-done
		t.Fatal("ImportFiles blocked opening a named pipe")
	}
	want := fifo + ": not a regular file but a pipe: give it on stdin instead"
	if err != nil || n != 1 || len(warned) == 0 || !strings.HasPrefix(warned[0], want) {
		t.Fatalf("bad %d, warned %q, %v; want the pipe named first (%q), no error", n, warned, err, want)
	}
	if im.Tally.Files != 2 || im.Tally.Inserted == 0 {
		t.Fatalf("tally %+v: want both paths counted and the good file's records stored", im.Tally)
	}
}

// A device on stdin is refused before anything is read: spooled, /dev/zero
// would fill the disk without end.
func TestImportStreamRefusesDevice(t *testing.T) {
	dev, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	f, _ := Lookup("claude-code")
	im, err := New(context.Background(), openStore(t), Options{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	err = im.ImportStream(context.Background(), dev)
	var ie *transcript.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "stdin is a device") {
		t.Fatalf("err = %v, want stdin refused as a device", err)
	}
}
