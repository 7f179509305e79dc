package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

// otlpReceiver is an OTLP/HTTP receiver on the collector's pdata decoders
// that accepts the first accept requests, then holds every later one
// until its hold channel closes (nil: accepts all).
type otlpReceiver struct {
	mu       sync.Mutex
	accept   int
	requests int
	held     chan struct{} // closed when the first request is held
	hold     chan struct{}
	accepted map[string]int // span id -> times accepted
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.requests++
	if rc.hold != nil && rc.requests > rc.accept {
		if rc.requests == rc.accept+1 {
			close(rc.held)
		}
		rc.mu.Unlock()
		<-rc.hold // never answered: the exporter is killed meanwhile
		return
	}
	for _, rs := range req.Traces().ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				rc.accepted[s.SpanID().String()]++
			}
		}
	}
	rc.mu.Unlock()
	out, _ := ptraceotlp.NewExportResponse().MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestKillExportOTLP: export --to otlp+http:// killed (SIGKILL) while the
// receiver holds its third batch loses nothing: the rerun sends every span
// the killed run got no answer for, with the same ids, and none of the
// batches the receiver accepted.
func TestKillExportOTLP(t *testing.T) {
	if testing.Short() {
		t.Skip("exports 3,000 conversations twice")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	seedChats(t, db, 3000)

	first := &otlpReceiver{accept: 2, held: make(chan struct{}), hold: make(chan struct{}), accepted: map[string]int{}}
	srv := httptest.NewServer(first)
	defer srv.Close()
	defer close(first.hold)
	c := convoCmd(t, db, "export", "--all", "--incremental", "--to", "otlp+"+srv.URL)
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.held:
	case <-time.After(60 * time.Second):
		c.Process.Kill()
		t.Fatalf("the export never sent a third batch (%d requests): %s", first.requests, stderr.String())
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()

	second := &otlpReceiver{accepted: map[string]int{}}
	srv2 := httptest.NewServer(second)
	defer srv2.Close()
	if out, err := convoCmd(t, db, "export", "--all", "--incremental", "--to", "otlp+"+srv2.URL).CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v: %s", err, out)
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	if len(first.accepted) == 0 {
		t.Fatal("the killed run had no batch accepted: the test proves nothing")
	}
	for id := range first.accepted {
		if second.accepted[id] > 0 {
			t.Fatalf("span %s was accepted by the killed run and sent again", id)
		}
	}
	if total := len(first.accepted) + len(second.accepted); total != 3000 {
		t.Fatalf("%d + %d distinct spans delivered, want all 3,000", len(first.accepted), len(second.accepted))
	}
	// And a third run has nothing left to send.
	third := &otlpReceiver{accepted: map[string]int{}}
	srv3 := httptest.NewServer(third)
	defer srv3.Close()
	if out, err := convoCmd(t, db, "export", "--all", "--incremental", "--to", "otlp+"+srv3.URL).CombinedOutput(); err != nil || third.requests != 0 {
		t.Fatalf("third run: %v, %d requests: %s", err, third.requests, out)
	}
}

// seedChats stores n conversations of one user record and one answer.
func seedChats(t *testing.T, db string, n int) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := transcript.NewIDs()
	for c := range n {
		_, err := s.Append(ctx, fmt.Sprintf("chat-%05d", c), ids, transcript.Slice(
			transcript.Record{Message: transcript.Message{Role: "user", Contents: []string{fmt.Sprintf("turn 1 of %d", c)}}},
			transcript.Record{Message: transcript.Message{Role: "assistant", Contents: []string{fmt.Sprintf("turn 2 of %d", c)}}}))
		if err != nil {
			t.Fatal(err)
		}
	}
}
