package storetest

// The export property: over random histories, the incremental export
// loses and duplicates nothing.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestExportProperty runs thousands of random sequences of appends (both
// roles, so merges), system and tool records, summaries inserted in the
// middle (a quarter of them deleting what they cover), and
// exports to several sinks with and without exclude-last, some of them
// failing before their commit. After every committed export, a replica
// built by upserting by id matches the store (all but the last record with
// exclude-last); no committed export sends an (id, version) a sink already
// had; at the end, one export per sink without exclude-last makes every
// replica hold the store's records as they are (deleted ones stay in the
// log: export sends no deletions).
func (x suite) TestExportProperty(t *testing.T) {
	sequences := 2000
	switch {
	case os.Getenv("CONVO_EXPORT_SEQUENCES") != "":
		sequences, _ = strconv.Atoi(os.Getenv("CONVO_EXPORT_SEQUENCES"))
	case testing.Short():
		sequences = 200
	case exportRace:
		// The race detector makes the transpiled SQLite some twenty times
		// slower, and this test runs on one goroutine: it finds no race.
		sequences = 100
	}
	s := x.open(t)
	ids := transcript.NewIDs()
	sinks := []string{"a", "b", "c"}
	for seq := range sequences {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			exportProperty(t, s, ids, sinks, uint64(seq))
		})
		if t.Failed() {
			break
		}
	}
}

type exportVersion struct {
	id  string
	seq int64
}

func exportProperty(t *testing.T, s store.Store, ids *transcript.IDs, sinks []string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	// Each sequence has its own conversations, 1 to 3, so --all exports
	// see several at once.
	convs := make([]string, 1+rng.IntN(3))
	for i := range convs {
		convs[i] = fmt.Sprintf("p%d-%d", seed, i)
	}
	h := &exportHistory{t: t, s: s, rng: rng, convs: convs,
		replica: map[string]map[string]string{}, sent: map[string]map[exportVersion]bool{}}
	for _, k := range sinks {
		h.replica[k], h.sent[k] = map[string]string{}, map[exportVersion]bool{}
	}
	steps := 10 + rng.IntN(40)
	for range steps {
		c := convs[rng.IntN(len(convs))]
		switch p := rng.IntN(100); {
		case p < 55:
			k := 1 + rng.IntN(3)
			recs := make([]transcript.Record, k)
			for i := range recs {
				recs[i] = h.record()
			}
			exportAppend(t, s, ids, c, recs...)
		case p < 63:
			if _, order := exportStored(t, s, c); len(order) > 0 {
				i := rng.IntN(len(order))
				exportInsertSummary(t, s, ids, c, order[i], order[:i+1], rng.IntN(4) == 0)
			}
		default:
			sink := sinks[rng.IntN(len(sinks))]
			targets := []string{c}
			if rng.IntN(3) == 0 {
				targets = h.listed(sink)
			} else if _, order := exportStored(t, s, c); len(order) == 0 {
				continue
			}
			h.export(sink, targets, rng.IntN(2) == 0, rng.IntN(6) == 0)
		}
	}
	h.finish(sinks)
}

// exportHistory is what exportProperty's sinks were sent: a replica of
// each (id to body), and each version sent, which must never come twice.
type exportHistory struct {
	t       *testing.T
	s       store.Store
	rng     *rand.Rand
	convs   []string
	replica map[string]map[string]string      // sink -> id -> body
	sent    map[string]map[exportVersion]bool // sink -> versions
	n       int
}

var exportRoles = []transcript.Role{"user", "assistant", "user", "assistant", "system", "tool"}

// record is a new record of a random role.
func (h *exportHistory) record() transcript.Record {
	h.n++
	r := exportMsg(exportRoles[h.rng.IntN(len(exportRoles))], fmt.Sprintf("t%d", h.n))
	if r.Message.Role == transcript.RoleTool {
		r.Message.ToolCallID = fmt.Sprintf("call_%d", h.n)
	}
	return r
}

// listed is what --all lists for sink, of this history's conversations; a
// conversation the listing leaves out must have nothing to send.
func (h *exportHistory) listed(sink string) []string {
	t, s := h.t, h.s
	targets, err := s.ExportConversations(context.Background(), sink)
	if err != nil {
		t.Fatal(err)
	}
	targets = slices.DeleteFunc(targets, func(id string) bool { return !slices.Contains(h.convs, id) })
	for _, c := range h.convs {
		if _, order := exportStored(t, s, c); len(order) > 0 && !slices.Contains(targets, c) {
			if rows, _ := exportRun(t, s, c, store.ExportOptions{Sink: sink}); len(rows) > 0 {
				t.Fatalf("sink %s: --all leaves out %s, which has %d records to send", sink, c, len(rows))
			}
		}
	}
	return targets
}

// export exports convs to sink and checks the replica against the store;
// a failing export (fail) sends a prefix and commits nothing.
func (h *exportHistory) export(sink string, convs []string, excludeLast, fail bool) {
	t, s := h.t, h.s
	var marks []store.Mark
	var rows []store.Row
	for _, c := range convs {
		r, m := exportRun(t, s, c, store.ExportOptions{Sink: sink, ExcludeLast: excludeLast})
		rows = append(rows, r...)
		marks = append(marks, m)
	}
	if fail {
		// The output broke part way: the consumer may have upserted a
		// prefix, and the cursor stays, so all of it comes again.
		for _, r := range rows[:h.rng.IntN(len(rows)+1)] {
			h.replica[sink][exportID(r.Body)] = string(r.Body)
		}
		return
	}
	if err := s.Commit(context.Background(), marks...); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		v := exportVersion{exportID(r.Body), r.Seq}
		if h.sent[sink][v] {
			t.Fatalf("sink %s got %s version %d twice", sink, v.id, v.seq)
		}
		h.sent[sink][v] = true
		h.replica[sink][v.id] = string(r.Body)
	}
	for _, c := range convs {
		stored, order := exportStored(t, s, c)
		for id, body := range stored {
			if excludeLast && id == order[len(order)-1] {
				continue
			}
			if h.replica[sink][id] != body {
				t.Fatalf("sink %s after export (exclude-last %v) of %v: record %s is\n%s\nin the replica, want\n%s",
					sink, excludeLast, convs, id, h.replica[sink][id], body)
			}
		}
	}
}

// finish exports everything left to every sink: each replica then equals
// the store, and --all lists nothing.
func (h *exportHistory) finish(sinks []string) {
	t, s := h.t, h.s
	var live []string
	for _, c := range h.convs {
		if _, order := exportStored(t, s, c); len(order) > 0 {
			live = append(live, c)
		}
	}
	for _, sink := range sinks {
		h.export(sink, live, false, false)
		for _, c := range live {
			stored, _ := exportStored(t, s, c)
			for id, body := range stored {
				if h.replica[sink][id] != body {
					t.Fatalf("sink %s at the end: record %s differs", sink, id)
				}
			}
		}
		// Nothing is left to send: the listing for --all agrees.
		left, err := s.ExportConversations(context.Background(), sink)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range live {
			if slices.Contains(left, c) {
				t.Fatalf("sink %s: %s still listed after a full export", sink, c)
			}
		}
	}
}
