package storetest

// The lifecycle of forks: a fork is its source's prefix, whatever the
// transcript.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestLifecycleForkProperty: over random transcripts, a fork at every
// record holds the source's prefix up to it, record for record, with new
// ids, forkedFrom naming the source's, summaryIds remapped, the rules kept
// and the file intact. A whole fork rewound to that record holds the same
// prefix, and the rewind handed over exactly the rest.
func (x suite) TestLifecycleForkProperty(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := x.open(t)
			ctx := context.Background()
			ids := transcript.NewIDs()
			rng := rand.New(rand.NewPCG(seed, 7))
			lcRandomTranscript(t, s, ids, "src", rng, 10+rng.IntN(30))
			src := readAll(t, s, "src", store.ReadOptions{})
			lcCheckRules(t, "source", src)
			for i, at := range src {
				dst := fmt.Sprintf("fork-%d", i)
				if at.IsFake() {
					lcRefusesCutAt(t, s, "src", at.ID, dst, ids)
					continue
				}
				res, err := s.Fork(ctx, "src", dst, store.ForkOptions{At: at.ID}, ids)
				lcMust(t, err)
				if res.Records != i+1 {
					t.Fatalf("fork at %d copied %d records", i, res.Records)
				}
				got := readAll(t, s, dst, store.ReadOptions{})
				lcComparePrefix(t, src[:i+1], got, dst)
				lcCheckRules(t, dst, got)

				rw := fmt.Sprintf("rewound-%d", i)
				_, err = s.Fork(ctx, "src", rw, store.ForkOptions{}, ids)
				lcMust(t, err)
				whole := readAll(t, s, rw, store.ReadOptions{})
				var removed []string
				_, err = s.Rewind(ctx, rw, whole[i].ID, store.RewindOptions{Removed: func(r store.Row) error {
					removed = append(removed, exportID(r.Body))
					return nil
				}})
				lcMust(t, err)
				got = readAll(t, s, rw, store.ReadOptions{})
				lcComparePrefix(t, src[:i+1], got, rw)
				lcCheckRules(t, rw, got)
				var rest []string
				for _, r := range whole[i+1:] {
					rest = append(rest, r.ID)
				}
				if !slices.Equal(removed, rest) {
					t.Fatalf("%s: rewind removed %v, want %v", rw, removed, rest)
				}
			}
			// The source is untouched and the file is sound.
			if after := readAll(t, s, "src", store.ReadOptions{}); !slices.EqualFunc(after, src, lcSame) {
				t.Fatal("fork changed the source")
			}
			lcMust(t, s.IntegrityCheck(ctx))
		})
	}
}

func lcSame(a, b transcript.Record) bool {
	return string(transcript.AppendJSON(nil, &a)) == string(transcript.AppendJSON(nil, &b))
}

// lcComparePrefix checks that fork is src record for record but for ids,
// conversation, forkedFrom and remapped summaryIds.
func lcComparePrefix(t testing.TB, src, fork []transcript.Record, dst string) {
	t.Helper()
	if len(fork) != len(src) {
		t.Fatalf("%s: %d records, want %d", dst, len(fork), len(src))
	}
	back := map[string]string{} // fork id -> source id
	inSrc := map[string]bool{}
	for _, r := range src {
		inSrc[r.ID] = true
	}
	for j := range src {
		f, o := fork[j], src[j]
		var from string
		if err := json.Unmarshal(f.Metadata.Aux[transcript.AuxForkedFrom], &from); err != nil || from != o.ID {
			t.Fatalf("%s[%d]: forkedFrom %s, want %s", dst, j, f.Metadata.Aux[transcript.AuxForkedFrom], o.ID)
		}
		if f.ID == o.ID || f.Conversation != dst {
			t.Fatalf("%s[%d]: id %s conversation %s", dst, j, f.ID, f.Conversation)
		}
		if j > 0 && f.ID <= fork[j-1].ID {
			t.Fatalf("%s[%d]: ids not increasing", dst, j)
		}
		back[f.ID] = o.ID
		for k, id := range f.Metadata.SummaryIDs {
			want := o.Metadata.SummaryIDs[k]
			orig, ok := back[id]
			if ok {
				id = orig
			} else if inSrc[want] {
				t.Fatalf("%s[%d]: summaryIds[%d] is %s, not the id of its copy", dst, j, k, id)
			}
			if id != want {
				t.Fatalf("%s[%d]: summaryIds[%d] maps back to %s, want %s", dst, j, k, id, want)
			}
		}
		// Everything else is the source's.
		f.ID, f.Conversation, f.Metadata.SummaryIDs = o.ID, o.Conversation, o.Metadata.SummaryIDs
		delete(f.Metadata.Aux, transcript.AuxForkedFrom)
		if len(f.Metadata.Aux) == 0 {
			f.Metadata.Aux = nil
		}
		if !lcSame(f, o) {
			t.Fatalf("%s[%d]:\n got %s\nwant %s", dst, j, transcript.AppendJSON(nil, &f), transcript.AppendJSON(nil, &o))
		}
	}
}

func (x suite) TestLifecycleForkTarget(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	lcAppend(t, s, ids, "a", msg("user", "hi"), msg("assistant", "hello"), msg("user", "bye"))
	lcAppend(t, s, ids, "b", msg("user", "other"))
	if _, err := s.Fork(ctx, "a", "b", store.ForkOptions{}, ids); !errors.Is(err, store.ErrExists) {
		t.Fatalf("fork onto an existing conversation: %v", err)
	}
	if got := contents(readAll(t, s, "b", store.ReadOptions{})); got != "user:other" {
		t.Fatalf("a refused fork changed the target: %s", got)
	}
	res, err := s.Fork(ctx, "a", "b", store.ForkOptions{Force: true, At: store.RefLastAssistant}, ids)
	lcMust(t, err)
	if res.Records != 2 || res.Replaced != 1 {
		t.Fatalf("%+v", res)
	}
	if got := contents(readAll(t, s, "b", store.ReadOptions{})); got != "user:hi assistant:hello" {
		t.Fatalf("forced fork: %s", got)
	}
	// The fork continues as a conversation of its own: a user record appends.
	lcAppend(t, s, ids, "b", msg("user", "again"), msg("user", "and again"))
	if got := contents(readAll(t, s, "b", store.ReadOptions{})); got != "user:hi assistant:hello user:again+and again" {
		t.Fatalf("append to the fork: %s", got)
	}
	for _, tc := range []struct{ src, at string }{{"nope", ""}, {"a", "01JRZJ166J2WRMF990535EVSQS"}} {
		if _, err := s.Fork(ctx, tc.src, "c", store.ForkOptions{At: tc.at}, ids); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("fork %s at %q: %v", tc.src, tc.at, err)
		}
	}
	if _, err := s.Fork(ctx, "a", "a", store.ForkOptions{}, ids); err == nil {
		t.Fatal("fork onto itself succeeded")
	}
	lcMust(t, s.IntegrityCheck(ctx))
}

// lcRefusesCutAt checks that a fork of conv at the placeholder id, and a
// rewind of conv to it, are refused (store.ErrPlaceholder) and change
// nothing: dst is not made.
func lcRefusesCutAt(t testing.TB, s store.Store, conv, id, dst string, ids *transcript.IDs) {
	t.Helper()
	ctx := context.Background()
	before := readAll(t, s, conv, store.ReadOptions{})
	if _, err := s.Fork(ctx, conv, dst, store.ForkOptions{At: id}, ids); !errors.Is(err, store.ErrPlaceholder) {
		t.Fatalf("fork at the placeholder %s: %v, want %v", id, err, store.ErrPlaceholder)
	}
	if _, err := s.Rewind(ctx, conv, id, store.RewindOptions{}); !errors.Is(err, store.ErrPlaceholder) {
		t.Fatalf("rewind to the placeholder %s: %v, want %v", id, err, store.ErrPlaceholder)
	}
	if err := s.Read(ctx, dst, store.ReadOptions{Limit: 1}, func(store.Row) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused fork made %q: %v", dst, err)
	}
	if after := readAll(t, s, conv, store.ReadOptions{}); !slices.EqualFunc(after, before, lcSame) {
		t.Fatal("the refused rewind changed the conversation")
	}
}
