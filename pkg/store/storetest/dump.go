package storetest

// Tests of Dump and Load, what convo copy moves a conversation with.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// dumpPieces returns everything Dump gives for conv, each piece deep-copied
// (a record's Body is valid only until the next piece).
func dumpPieces(t testing.TB, s store.Store, conv string) []store.Dumped {
	t.Helper()
	var out []store.Dumped
	err := s.Dump(context.Background(), conv, func(d store.Dumped) error {
		n := 0
		if c := d.Conversation; c != nil {
			cc := *c
			d.Conversation = &cc
			n++
		}
		if r := d.Record; r != nil {
			rc := *r
			rc.Body = slices.Clone(r.Body)
			d.Record = &rc
			n++
		}
		if a := d.Absorbed; a != nil {
			ac := *a
			d.Absorbed = &ac
			n++
		}
		if c := d.Cursor; c != nil {
			cc := *c
			d.Cursor = &cc
			n++
		}
		if sc := d.Schema; sc != nil {
			scc := *sc
			scc.Body = slices.Clone(sc.Body)
			d.Schema = &scc
			n++
		}
		if b := d.Batch; b != nil {
			bc := *b
			bc.Options = slices.Clone(b.Options)
			d.Batch = &bc
			n++
		}
		if ic := d.Import; ic != nil {
			icc := *ic
			d.Import = &icc
			n++
		}
		if dd := d.Deleted; dd != nil {
			ddc := *dd
			d.Deleted = &ddc
			n++
		}
		if f := d.Figure; f != nil {
			fc := *f
			d.Figure = &fc
			n++
		}
		if n != 1 {
			t.Errorf("a dumped piece holds %d things, want 1: %+v", n, d)
		}
		out = append(out, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpText is a dump as one line per piece (JSON, then any body as stored),
// for comparing and printing.
func dumpText(t testing.TB, pieces []store.Dumped) []string {
	t.Helper()
	out := make([]string, len(pieces))
	for i, d := range pieces {
		switch {
		case d.Record != nil:
			r := *d.Record
			r.Body = nil
			out[i] = jsonText(t, r) + " " + string(d.Record.Body)
		case d.Schema != nil:
			sc := *d.Schema
			sc.Body = nil
			out[i] = jsonText(t, sc) + " " + string(d.Schema.Body)
		default:
			out[i] = jsonText(t, d)
		}
	}
	return out
}

// dumpFeed turns pieces into the pull function Load takes.
func dumpFeed(pieces []store.Dumped) func() (store.Dumped, error) {
	return func() (store.Dumped, error) {
		if len(pieces) == 0 {
			return store.Dumped{}, io.EOF
		}
		d := pieces[0]
		pieces = pieces[1:]
		return d, nil
	}
}

// dumpCount counts the pieces of each kind.
func dumpCount(pieces []store.Dumped) (records, absorbed, cursors, schemas int) {
	for _, d := range pieces {
		switch {
		case d.Record != nil:
			records++
		case d.Absorbed != nil:
			absorbed++
		case d.Cursor != nil:
			cursors++
		case d.Schema != nil:
			schemas++
		}
	}
	return
}

// TestDumpLoadRoundTrip: a conversation with merges, summaries, export
// cursors (one holding its last record back) and an answer schema, loaded
// into a second store, dumps the same and behaves the same: the next
// incremental exports send the same, the next append gets the same change
// sequences. An existing conversation is ErrExists and left as it was,
// unless replace; a failed load stores nothing.
func (x suite) TestDumpLoadRoundTrip(t *testing.T) {
	src := x.open(t)
	dst := x.open(t) // a second backend(t) call: another, empty store
	ctx := context.Background()
	ids := transcript.NewIDs()

	// Explicit ids so that the merged ones are remembered as absorbed.
	withID := func(r transcript.Record, id string) transcript.Record { r.ID = id; return r }
	exportAppend(t, src, ids, "c",
		withID(exportMsg("system", "Be brief."), "01JRZJ166J2WRMF990535EVSQ1"),
		withID(exportMsg("user", "Weather in Paris?"), "01JRZJ166J2WRMF990535EVSQ2"),
		withID(exportMsg("user", "And tomorrow?"), "01JRZJ166J2WRMF990535EVSQ3"),
		withID(exportMsg("assistant", "Sunny."), "01JRZJ166J2WRMF990535EVSQ4"),
		withID(exportMsg("user", "Lisbon?"), "01JRZJ166J2WRMF990535EVSQ5"),
		withID(exportMsg("assistant", "Rainy."), "01JRZJ166J2WRMF990535EVSQ6"))
	exportInsertSummary(t, src, ids, "c", "01JRZJ166J2WRMF990535EVSQ4",
		[]string{"01JRZJ166J2WRMF990535EVSQ2", "01JRZJ166J2WRMF990535EVSQ4"}, false)
	_, m := exportRun(t, src, "c", store.ExportOptions{Sink: "all"})
	lcMust(t, src.Commit(ctx, m))
	_, m = exportRun(t, src, "c", store.ExportOptions{Sink: "held", ExcludeLast: true})
	lcMust(t, src.Commit(ctx, m))
	// Changes after the exports: a merge into the held record, a new turn.
	exportAppend(t, src, ids, "c", exportMsg("assistant", "Cold too."), exportMsg("user", "Thanks."))
	lcMust(t, src.SetSchema(ctx, "c", store.ConversationSchema{Name: "city", Body: []byte(`{"type":"object"}`), Updated: 1744815823001}))
	exportAppend(t, src, ids, "other", exportMsg("user", "not copied"))

	want := dumpPieces(t, src, "c")
	if r, a, c, s := dumpCount(want); r != 7 || a != 1 || c != 2 || s != 1 {
		t.Fatalf("the dump holds %d records, %d absorbed ids, %d cursors, %d schemas; want 7, 1, 2, 1:\n%s",
			r, a, c, s, dumpText(t, want))
	}
	if err := dst.Load(ctx, false, dumpFeed(want)); err != nil {
		t.Fatal(err)
	}
	if got := dumpText(t, dumpPieces(t, dst, "c")); !slices.Equal(got, dumpText(t, want)) {
		t.Fatalf("loaded:\n%s\nwant:\n%s", got, dumpText(t, want))
	}
	if err := dst.Dump(ctx, "other", func(store.Dumped) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a conversation not loaded: %v, want ErrNotFound", err)
	}

	loadedAlike(t, src, dst, ids, withID)
	loaded := dumpText(t, dumpPieces(t, dst, "c"))

	// Without replace an existing conversation is refused and unchanged.
	_, err := src.DeleteSchema(ctx, "c")
	lcMust(t, err)
	_, err = src.Rewind(ctx, "c", "01JRZJ166J2WRMF990535EVSQ4", store.RewindOptions{})
	lcMust(t, err)
	next := dumpPieces(t, src, "c")
	if err := dst.Load(ctx, false, dumpFeed(next)); !errors.Is(err, store.ErrExists) {
		t.Fatalf("load over an existing conversation: %v, want ErrExists", err)
	}
	if got := dumpText(t, dumpPieces(t, dst, "c")); !slices.Equal(got, loaded) {
		t.Fatalf("a refused load changed the target:\n%s\nwant:\n%s", got, loaded)
	}
	// With replace it is the source's, nothing of the old one left (the
	// schema and the rewound records included).
	lcMust(t, dst.Load(ctx, true, dumpFeed(next)))
	if got := dumpText(t, dumpPieces(t, dst, "c")); !slices.Equal(got, dumpText(t, next)) {
		t.Fatalf("replaced:\n%s\nwant:\n%s", got, dumpText(t, next))
	}
	if _, ok, err := dst.Schema(ctx, "c"); ok || err != nil {
		t.Fatalf("the replaced conversation kept its schema: %v %v", ok, err)
	}

	loadFailsWhole(t, dst, want)
	if err := dst.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// loadedAlike: a loaded conversation behaves as its source, not only holds
// the same rows: the same status, the same exports for each sink, the same
// next append, and a merged id stays absorbed.
func loadedAlike(t *testing.T, src, dst store.Store, ids *transcript.IDs, withID func(transcript.Record, string) transcript.Record) {
	ctx := context.Background()
	srcStatus, err := src.Status(ctx, "c")
	lcMust(t, err)
	dstStatus, err := dst.Status(ctx, "c")
	lcMust(t, err)
	if a, b := jsonText(t, srcStatus), jsonText(t, dstStatus); a != b {
		t.Fatalf("status after the load:\n%s\nwant\n%s", b, a)
	}
	for _, opt := range []store.ExportOptions{{Sink: "all"}, {Sink: "held", ExcludeLast: true}, {Sink: "new"}} {
		a, _ := exportRun(t, src, "c", opt)
		b, _ := exportRun(t, dst, "c", opt)
		if a, b := jsonText(t, a), jsonText(t, b); a != b {
			t.Fatalf("export %+v after the load:\n%s\nwant\n%s", opt, b, a)
		}
	}
	more := withID(exportMsg("assistant", "You are welcome."), "01JRZJ166J2WRMF990535EVSQ9")
	resSrc, err := src.Append(ctx, "c", ids, transcript.Slice(more))
	lcMust(t, err)
	resDst, err := dst.Append(ctx, "c", ids, transcript.Slice(more))
	lcMust(t, err)
	if resSrc != resDst {
		t.Fatalf("the next append after the load: %+v, want %+v", resDst, resSrc)
	}
	// A merged id stays absorbed: sent again, it is skipped.
	if res, err := dst.Append(ctx, "c", ids, transcript.Slice(withID(exportMsg("user", "And tomorrow?"), "01JRZJ166J2WRMF990535EVSQ3"))); err != nil || res.Skipped != 1 {
		t.Fatalf("an absorbed id appended again: %+v %v, want it skipped", res, err)
	}
}

// loadFailsWhole: a load whose source fails midway stores nothing.
func loadFailsWhole(t *testing.T, dst store.Store, want []store.Dumped) {
	ctx := context.Background()
	renamed := slices.Clone(want)
	c := *renamed[0].Conversation
	c.ID = "half"
	renamed[0].Conversation = &c
	broken := errors.New("source went away")
	feedHalf := dumpFeed(renamed[:4])
	err := dst.Load(ctx, false, func() (store.Dumped, error) {
		d, err := feedHalf()
		if errors.Is(err, io.EOF) {
			return d, broken
		}
		return d, err
	})
	if !errors.Is(err, broken) {
		t.Fatalf("load with a failing source: %v, want its error", err)
	}
	if err := dst.Dump(ctx, "half", func(store.Dumped) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a failed load left the conversation: %v", err)
	}
}

func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
