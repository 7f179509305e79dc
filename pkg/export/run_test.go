package export_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// records is the store as export.Run reads it, as cmd wires it.
type records struct{ store.Store }

func (s records) ExportRecords(ctx context.Context, conv, sink string, excludeLast bool, fn func([]byte) error) (store.Mark, error) {
	return s.Export(ctx, conv, store.ExportOptions{Sink: sink, ExcludeLast: excludeLast},
		func(r store.Row) error { return fn(r.Body) })
}

// openStore opens a SQLite store of the test's own.
func openStore(t testing.TB) store.Store { return sqlitetest.Open(t) }

// say appends one message to conv per text, with roles alternating from
// role. A message of the role the conversation ends with merges into its
// last record, as the rules of SPEC section 2 say.
func say(t testing.TB, s store.Store, conv string, role transcript.Role, texts ...string) {
	t.Helper()
	roles := []transcript.Role{role, transcript.RoleAssistant}
	if role == transcript.RoleAssistant {
		roles[1] = transcript.RoleUser
	}
	recs := make([]transcript.Record, len(texts))
	for i, text := range texts {
		recs[i] = transcript.Record{Message: transcript.Message{Role: roles[i%2], Contents: []string{text}}}
	}
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// sent is what an output received: each record as id and contents, and
// whether Close was called.
type sent struct {
	ids, texts []string
	closed     bool
	closeErr   error // what Close returns
	writeErr   error // what Write returns
}

func (o *sent) Write(body []byte) error {
	if o.writeErr != nil {
		return o.writeErr
	}
	r, err := transcript.ParseLine(body)
	if err != nil {
		return err
	}
	o.ids = append(o.ids, r.ID)
	o.texts = append(o.texts, strings.Join(r.Message.Contents, "+"))
	return nil
}

func (o *sent) Close() error {
	o.closed = true
	return o.closeErr
}

func run(t *testing.T, s export.Store[store.Mark], j export.Job) *sent {
	t.Helper()
	out := &sent{}
	if err := export.Run(context.Background(), s, out, j); err != nil {
		t.Fatalf("export %+v: %v", j, err)
	}
	if !out.closed {
		t.Fatal("Run did not close its output")
	}
	return out
}

func wantTexts(t *testing.T, what string, out *sent, want ...string) {
	t.Helper()
	if !slices.Equal(out.texts, want) {
		t.Errorf("%s sent %q, want %q", what, out.texts, want)
	}
}

func TestRunEverythingMovesNoCursor(t *testing.T) {
	s := openStore(t)
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	for range 2 {
		wantTexts(t, "an export without a sink", run(t, records{s}, export.Job{Conversation: "demo"}), "a", "b")
	}
	if seq, err := s.Cursor(context.Background(), "demo", "default"); err != nil || seq != 0 {
		t.Errorf("cursor at %d (%v), want 0", seq, err)
	}
}

func TestRunIncrementalSendsOnlyNews(t *testing.T) {
	s := openStore(t)
	j := export.Job{Conversation: "demo", Sink: "default"}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	wantTexts(t, "the first export", run(t, records{s}, j), "a", "b")
	wantTexts(t, "an export with no news", run(t, records{s}, j))
	say(t, s, "demo", transcript.RoleUser, "c")
	wantTexts(t, "an export after one new record", run(t, records{s}, j), "c")
	// Another sink has its own cursor.
	wantTexts(t, "the first export to another sink", run(t, records{s}, export.Job{Conversation: "demo", Sink: "archive"}), "a", "b", "c")
}

func TestRunResendsMergedRecordWhole(t *testing.T) {
	s := openStore(t)
	j := export.Job{Conversation: "demo", Sink: "default"}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	first := run(t, records{s}, j)
	say(t, s, "demo", transcript.RoleAssistant, "more") // merges into b
	again := run(t, records{s}, j)
	wantTexts(t, "the export after a merge", again, "b+more")
	if len(again.ids) != 1 || again.ids[0] != first.ids[1] {
		t.Errorf("merged record sent with id %q, want the id it was sent with, %s", again.ids, first.ids[1])
	}
}

func TestRunExcludeLast(t *testing.T) {
	s := openStore(t)
	held := export.Job{Conversation: "demo", Sink: "default", ExcludeLast: true}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	wantTexts(t, "--exclude-last", run(t, records{s}, held), "a")
	wantTexts(t, "--exclude-last again", run(t, records{s}, held))
	say(t, s, "demo", transcript.RoleAssistant, "more") // the held record may still merge
	wantTexts(t, "--exclude-last after a merge", run(t, records{s}, held))
	held.ExcludeLast = false
	wantTexts(t, "an export without --exclude-last", run(t, records{s}, held), "b+more")
	wantTexts(t, "the next export", run(t, records{s}, held))
}

// A failed Close, a failed Write or a refused commit leaves the cursor where
// it was, and the next export sends it all again.
func TestRunFailedOutputMovesNoCursor(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	j := export.Job{Conversation: "demo", Sink: "default"}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	full := errors.New("no space left on device")
	for _, out := range []*sent{{closeErr: full}, {writeErr: full}} {
		if err := export.Run(ctx, records{s}, out, j); !errors.Is(err, full) {
			t.Fatalf("export to a failing output: %v, want %v", err, full)
		}
		if seq, err := s.Cursor(ctx, "demo", "default"); err != nil || seq != 0 {
			t.Fatalf("a failed export moved the cursor to %d (%v)", seq, err)
		}
	}
	wantTexts(t, "the export after the failures", run(t, records{s}, j), "a", "b")
	if seq, _ := s.Cursor(ctx, "demo", "default"); seq == 0 {
		t.Fatal("a delivered export moved no cursor")
	}
}

// Delivered runs after Close and before the commit; its error keeps the
// cursor, as a reader that stopped early does.
func TestRunUndeliveredMovesNoCursor(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	say(t, s, "demo", transcript.RoleUser, "a")
	out := &sent{}
	gone := errors.New("the reader stopped early")
	j := export.Job{Conversation: "demo", Sink: "default", Delivered: func(context.Context) error {
		if !out.closed {
			t.Error("Delivered ran before Close")
		}
		return gone
	}}
	if err := export.Run(ctx, records{s}, out, j); !errors.Is(err, gone) {
		t.Fatalf("an undelivered export: %v, want %v", err, gone)
	}
	if seq, err := s.Cursor(ctx, "demo", "default"); err != nil || seq != 0 {
		t.Fatalf("an undelivered export moved the cursor to %d (%v)", seq, err)
	}
	j.Delivered = func(context.Context) error { return nil }
	wantTexts(t, "the export after it", run(t, records{s}, j), "a")
	if seq, _ := s.Cursor(ctx, "demo", "default"); seq == 0 {
		t.Fatal("a delivered export moved no cursor")
	}
}

// racing is an output whose Close runs a whole other export to the same
// sink, as a second process would: the first one's commit must then fail.
type racing struct {
	sent
	t *testing.T
	s store.Store
	j export.Job
}

func (r *racing) Close() error {
	wantTexts(r.t, "the export that overtakes", run(r.t, records{r.s}, r.j), "a", "b")
	return nil
}

func TestRunConcurrentExportCommitsNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	j := export.Job{Conversation: "demo", Sink: "default"}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")
	err := export.Run(ctx, records{s}, &racing{t: t, s: s, j: j}, j)
	if !errors.Is(err, store.ErrCursorMoved) {
		t.Fatalf("the overtaken export: %v, want %v", err, store.ErrCursorMoved)
	}
	wantTexts(t, "the export after both", run(t, records{s}, j))
}

// clearing clears a conversation right after listing them, as a clear
// racing an export --all would.
type clearing struct {
	records
	conv    string
	cleared bool
}

func (c *clearing) ExportConversations(ctx context.Context, sink string) ([]string, error) {
	ids, err := c.records.ExportConversations(ctx, sink)
	if err == nil && !c.cleared {
		c.cleared = true
		_, err = c.Clear(ctx, c.conv)
	}
	return ids, err
}

func TestRunAll(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, c := range []string{"b", "a", "c"} {
		say(t, s, c, transcript.RoleUser, "hello "+c)
	}
	all := export.Job{All: true, Sink: "default"}
	wantTexts(t, "--all", run(t, records{s}, all), "hello a", "hello b", "hello c")
	say(t, s, "b", transcript.RoleAssistant, "news")
	wantTexts(t, "--all after news in b", run(t, records{s}, all), "news")

	// A conversation cleared between the listing and its read is skipped;
	// the others still move their cursors.
	say(t, s, "a", transcript.RoleAssistant, "news a")
	say(t, s, "c", transcript.RoleAssistant, "news c")
	wantTexts(t, "--all while c is cleared", run(t, &clearing{records: records{s}, conv: "c"}, all), "news a")
	wantTexts(t, "--all after that", run(t, records{s}, all))

	// One conversation that does not exist is the store's not found.
	err := export.Run(ctx, records{s}, &sent{}, export.Job{Conversation: "nobody"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("export of a missing conversation: %v, want %v", err, store.ErrNotFound)
	}
}

// items is an ItemSink that keeps what it was given.
type items struct {
	put      []string
	flushes  int
	flushErr error
}

func (i *items) Put(_ context.Context, item []byte) error {
	i.put = append(i.put, string(item))
	return nil
}

func (i *items) Flush(context.Context) error {
	i.flushes++
	return i.flushErr
}

// Through NewItemWriter: the sink gets each record as its item, and the
// cursor moves only once its Flush succeeded.
func TestRunToItemSink(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	j := export.Job{Conversation: "demo", Sink: "default"}
	say(t, s, "demo", transcript.RoleUser, "a")
	say(t, s, "demo", transcript.RoleAssistant, "b")

	refused := &items{flushErr: errors.New("ResourceNotFoundException: no such table")}
	if err := export.Run(ctx, records{s}, export.NewItemWriter(ctx, refused), j); !errors.Is(err, refused.flushErr) {
		t.Fatalf("export to a refusing table: %v", err)
	}
	if seq, _ := s.Cursor(ctx, "demo", "default"); seq != 0 || refused.flushes != 1 {
		t.Fatalf("cursor at %d after %d flushes, want 0 after 1", seq, refused.flushes)
	}

	ok := &items{}
	if err := export.Run(ctx, records{s}, export.NewItemWriter(ctx, ok), j); err != nil {
		t.Fatal(err)
	}
	var want []string
	s.Read(ctx, "demo", store.ReadOptions{}, func(r store.Row) error {
		item, err := export.AppendItem(nil, r.Body)
		want = append(want, string(item))
		return err
	})
	if !slices.Equal(ok.put, want) || ok.flushes != 1 {
		t.Fatalf("the sink got %q after %d flushes, want %q after 1", ok.put, ok.flushes, want)
	}
	if seq, _ := s.Cursor(ctx, "demo", "default"); seq == 0 {
		t.Fatal("a delivered export moved no cursor")
	}
}

// A record over DynamoDB's 400 KB fails the export, naming the record, and
// moves no cursor.
func TestRunItemTooLarge(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	say(t, s, "huge", transcript.RoleUser, "small")
	say(t, s, "huge", transcript.RoleAssistant, strings.Repeat("x", 410<<10))
	var id string
	s.Read(ctx, "huge", store.ReadOptions{}, func(r store.Row) error {
		rec, err := transcript.ParseLine(r.Body)
		id = rec.ID
		return err
	})
	err := export.Run(ctx, records{s}, export.NewItemWriter(ctx, &items{}), export.Job{Conversation: "huge", Sink: "default"})
	if err == nil || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "400 KB") {
		t.Fatalf("export of a record over 400 KB: %v, want an error naming %s", err, id)
	}
	if seq, _ := s.Cursor(ctx, "huge", "default"); seq != 0 {
		t.Fatalf("a failed export moved the cursor to %d", seq)
	}
}

func TestTransform(t *testing.T) {
	in := `{"role":"user","content":"Weather in Paris?"}
{"role":"user","content":"And in Rome?"}
{"role":"assistant","content":"Sunny in both."}
`
	out := &sent{}
	ids := transcript.NewIDs()
	if err := export.Transform(strings.NewReader(in), out, ids, func() int64 { return 1744815823058 }); err != nil {
		t.Fatal(err)
	}
	wantTexts(t, "the transform", out, "Weather in Paris?+And in Rome?", "Sunny in both.")
	if !out.closed || len(out.ids) != 2 || out.ids[0] == "" {
		t.Errorf("closed %v, ids %q: want a closed output and fresh ids", out.closed, out.ids)
	}

	// A record longer than the encoder's buffer reaches the output in
	// pieces, and whole.
	long := strings.Repeat("é", 100<<10)
	out = &sent{}
	in = fmt.Sprintf("{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":%q}\n{\"role\":\"user\",\"content\":\"ok\"}\n", long)
	if err := export.Transform(strings.NewReader(in), out, ids, func() int64 { return 1 }); err != nil {
		t.Fatal(err)
	}
	if len(out.texts) != 3 || out.texts[1] != long || out.texts[2] != "ok" {
		t.Errorf("the transform of a long record sent %d record(s), want it whole between two others", len(out.texts))
	}

	// Bad input is the transcript's InputError, and nothing is closed.
	out = &sent{}
	err := export.Transform(strings.NewReader("{\"role\":\"user\",\"content\":\"ok\"}\nnot json\n"), out, ids, func() int64 { return 1 })
	var ie *transcript.InputError
	if !errors.As(err, &ie) || out.closed {
		t.Errorf("bad input: %v (closed %v), want an InputError and an open output", err, out.closed)
	}
}

// BenchmarkRun exports a stored conversation of 1,000 records as JSONL.
func BenchmarkRun(b *testing.B) {
	s := openStore(b)
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog, and then asks how the weather is in Paris today.", i)
	}
	say(b, s, "bench", transcript.RoleUser, texts...)
	b.ReportAllocs()
	for b.Loop() {
		w, _ := export.NewWriter(io.Discard, export.JSONL, export.Options{})
		if err := export.Run(context.Background(), records{s}, w, export.Job{Conversation: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
