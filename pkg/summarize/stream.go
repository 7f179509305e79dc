package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

// A stored conversation is summarized by the extractive summarizer in
// reads of the store rather than from memory: the first keeps what
// planning needs of each record (its role, tokens, tool call ids, a hash of
// its id), the next stream the records the plan covers, from the same
// snapshot (records changed since are left out by their change sequence,
// and a record gone is noticed by its id), so memory follows the work in
// flight, not the length of the conversation.

// skel is what planning keeps of one record.
type skel struct {
	role  uint8 // index into skeleton.roles
	fake  bool
	count int32  // tokens the LLM is sent
	calls int32  // 1 + index into skeleton.calls, or 0: no tool call or result
	id    uint32 // a hash of the id: a record gone between reads shows
}

type skeleton struct {
	recs     []skel
	roles    []transcript.Role
	calls    []spanCalls
	latest   int
	previous *transcript.Record
	readSeq  int64
}

type spanCalls struct {
	result string   // a tool result's call id
	ids    []string // an assistant record's calls
}

func (k *skeleton) roleIndex(r transcript.Role) uint8 {
	for i, x := range k.roles {
		if x == r {
			return uint8(i)
		}
	}
	k.roles = append(k.roles, transcript.Role(strings.Clone(string(r))))
	return uint8(len(k.roles) - 1)
}

func (k *skeleton) spanRecord(i int) transcript.SpanRecord {
	r := k.recs[i]
	sr := transcript.SpanRecord{Role: k.roles[r.role], Fake: r.fake, Tokens: int(r.count)}
	if r.calls > 0 {
		c := k.calls[r.calls-1]
		sr.ToolCallID, sr.CallIDs = c.result, c.ids
	}
	return sr
}

func idHash(id string) uint32 { return uint32(work.Hash(id)) }

// readSkeleton is the first read: the conversation from its latest summary
// on, as planning needs it.
func readSkeleton(ctx context.Context, s Store, conv string, opt Options) (*skeleton, error) {
	k := &skeleton{latest: -1}
	// The records are decoded as read and counted a batch at a time, on
	// every processor.
	var batch []transcript.Record
	counted := func() {
		base := len(k.recs) - len(batch)
		work.ForEach(len(batch), func(i int) {
			if batch[i].Message.Role != transcript.RoleSystem {
				k.recs[base+i].count = int32(opt.Counter.Record(&batch[i]))
			}
		})
		clear(batch)
		batch = batch[:0]
	}
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return fmt.Errorf("stored record is corrupt: %w", err)
		}
		rec.Conversation = conv
		k.readSeq = max(k.readSeq, row.Seq)
		sk := skel{role: k.roleIndex(rec.Message.Role), fake: rec.IsFake(), id: idHash(rec.ID)}
		if rec.Message.ToolCallID != "" || len(rec.Message.ToolCalls) > 0 {
			c := spanCalls{result: strings.Clone(rec.Message.ToolCallID)}
			for _, tc := range rec.Message.ToolCalls {
				c.ids = append(c.ids, strings.Clone(tc.ID))
			}
			k.calls = append(k.calls, c)
			sk.calls = int32(len(k.calls))
		}
		if rec.Message.Role == transcript.RoleSummary {
			// Only the first record read can be one: the read starts at it.
			prev := rec.Clone()
			k.previous, k.latest = &prev, len(k.recs)
		}
		k.recs = append(k.recs, sk)
		if batch = append(batch, rec); len(batch) == work.Batch {
			counted()
		}
		return nil
	})
	counted()
	return k, err
}

// errSpanChanged is a covered record gone or changed between the reads.
var errSpanChanged = fmt.Errorf("%w: a record was changed while it was summarized", store.ErrConflict)

// errStop ends a read early: the rest is not needed.
var errStop = errors.New("stop reading")

// prepareStored plans the summary of a stored conversation without
// holding its records; the plan's records are streamed from s.
func prepareStored(ctx context.Context, s Store, conv string, opt Options) (*Plan, Skip, int64, error) {
	k, err := readSkeleton(ctx, s, conv, opt)
	if err != nil {
		return nil, "", 0, err
	}
	p, skip := plan(spanOf{
		n: len(k.recs), latest: k.latest, previous: k.previous,
		role:  func(i int) transcript.Role { return k.roles[k.recs[i].role] },
		count: func(i int) int { return int(k.recs[i].count) },
		span: func(keepLast, keepTokens int) transcript.Span {
			return transcript.SummarySpanOf(len(k.recs), k.spanRecord, keepLast, keepTokens)
		},
	}, opt)
	if p == nil {
		return nil, skip, k.readSeq, nil
	}
	// The records folded in: the covered ones less the previous summary.
	covered := p.Span.Covered
	if p.Previous != nil {
		covered = covered[1:]
	}
	idHashes := make([]uint32, len(covered))
	for j, i := range covered {
		idHashes[j] = k.recs[i].id
	}
	p.readSeq = k.readSeq
	k = nil // what is left of the first read is the plan
	p.each = readCovered(ctx, s, conv, p.readSeq, covered, idHashes)
	// The ledger's read of the records also gathers what the summary
	// record says of them, but their ids: those are read last, once the
	// summarizer is done, so they are not held while it works.
	stream := p.each
	reads := 0
	p.each = func(fn func(*transcript.Record) error) error {
		reads++
		if reads > 1 { // the ledger reads some facts again: all is known
			return stream(fn)
		}
		n := 0
		return stream(func(r *transcript.Record) error {
			if n == 0 {
				p.coveredFrom = r.Metadata.Timing.Creation
			}
			n++
			p.coveredTo = r.Metadata.Timing.Creation
			if r.Message.Role != transcript.RoleSummary {
				if p.firstID == "" {
					p.firstID = strings.Clone(r.ID)
				}
				p.lastID = strings.Clone(r.ID)
			}
			return fn(r)
		})
	}
	err = p.finish(opt, false)
	p.each, p.Input.Each = stream, stream
	if err != nil {
		return nil, "", 0, err
	}
	p.anchorID = p.lastID
	p.gatherIDs = func() error {
		var ids idArena
		ids.out = make([]string, 0, len(p.Span.Covered))
		if p.Previous != nil {
			ids.add(p.Previous.ID)
		}
		err := stream(func(r *transcript.Record) error {
			ids.add(r.ID)
			return nil
		})
		p.coveredIDs = ids.done()
		return err
	}
	return p, "", p.readSeq, nil
}

// readCovered reads the covered records (positions in the read from the
// latest summary, up to upTo) and calls fn with each; errSpanChanged when
// one of them is no longer the record the plan was made of.
func readCovered(ctx context.Context, s Store, conv string, upTo int64, covered []int, idHashes []uint32) transcript.Stream {
	return func(fn func(*transcript.Record) error) error {
		j, pos := 0, -1
		var rec transcript.Record
		err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true, UpToSeq: upTo}, func(row store.Row) error {
			pos++
			if pos != covered[j] {
				return nil
			}
			rec = transcript.Record{}
			if err := transcript.DecodeStored(row.Body, &rec); err != nil {
				return fmt.Errorf("stored record is corrupt: %w", err)
			}
			if idHash(rec.ID) != idHashes[j] {
				return errSpanChanged
			}
			rec.Conversation = conv
			j++
			if err := fn(&rec); err != nil {
				return err
			}
			if j == len(covered) {
				return errStop // the rest is kept verbatim
			}
			return nil
		})
		if errors.Is(err, errStop) {
			err = nil
		}
		if err == nil && j < len(covered) {
			err = errSpanChanged
		}
		return err
	}
}

// idArena holds many short strings in few allocations: each chunk of
// them is one string the others are slices of.
type idArena struct {
	b    strings.Builder
	ends []int
	out  []string
}

const idChunk = 1 << 16

func (a *idArena) add(id string) {
	if a.b.Len()+len(id) > idChunk && a.b.Len() > 0 {
		a.flush()
	}
	if a.b.Cap() == 0 {
		a.b.Grow(max(idChunk, len(id)))
	}
	a.b.WriteString(id)
	a.ends = append(a.ends, a.b.Len())
}

func (a *idArena) flush() {
	s, start := a.b.String(), 0
	for _, e := range a.ends {
		a.out = append(a.out, s[start:e])
		start = e
	}
	a.b, a.ends = strings.Builder{}, a.ends[:0]
}

func (a *idArena) done() []string {
	a.flush()
	return a.out
}
