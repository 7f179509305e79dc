package summarize

import (
	"container/heap"
	"slices"
)

// fit keeps the best scoring notes within budget tokens, in their order. A
// note too long on its own is clipped rather than lost when nothing fits.
func (s *noteSet) fit(budget int) ([]note, error) {
	e := s.e
	room := budget - e.Counter.Count(notesHeading) - 1
	kept := map[int]note{}
	// A reply is kept with what the user said in its turn: the user's best
	// note (its pair) comes with it, so no line is an answer to nothing.
	userKept := map[int]bool{}
	held := map[string]bool{}
	take := func(c *cand) {
		kept[c.idx] = c.note
		for _, w := range c.words {
			held[w] = true
		}
	}
	// Greedy on what each note adds to the notes taken so far: a note's
	// gain only falls as they grow, so one is taken once its fresh gain
	// still beats every other note's last known gain. The candidates come
	// into the queue a batch at a time (see walk): one not in it yet has
	// its score for its last known gain, which is below the batch's.
	queue := &gainQueue{}
	var best *note
	w := s.walker(&room)
	// fill brings the next batch into the queue while a candidate not in
	// it may go before its top.
	fill := func() error {
		for {
			c, ok, err := w.peek()
			if err != nil || !ok || queue.Len() > 0 && !queue.before(c.score, c.idx, queue.items[0]) {
				return err
			}
			batch, err := w.next()
			if err != nil {
				return err
			}
			for i := range batch {
				heap.Push(queue, gainItem{c: &batch[i], gain: batch[i].score})
			}
		}
	}
	for room >= minNoteCost {
		if err := fill(); err != nil {
			return nil, err
		}
		if queue.Len() == 0 {
			break
		}
		top := heap.Pop(queue).(gainItem)
		c := top.c
		if best == nil {
			n := c.note
			best = &n
		}
		if _, ok := kept[c.idx]; ok {
			continue
		}
		g := gain(&c.note, held)
		_, pairKept := kept[idxOf(c.pair)]
		if c.pair != nil && c.reply && !userKept[c.turn] && !pairKept {
			// A reply brings the user's note in with it: the two are
			// weighed together, as their cost is counted together.
			r, v := &c.note, &c.pair.note
			g = (g*r.length + gain(v, held)*v.length) / (r.length + v.length)
		}
		if err := fill(); err != nil {
			return nil, err
		}
		if g < top.gain && queue.Len() > 0 && g < queue.items[0].gain {
			heap.Push(queue, gainItem{c: c, gain: g})
			continue
		}
		cost, pair := c.cost, (*cand)(nil)
		if c.pair != nil && c.reply && !userKept[c.turn] {
			pair = c.pair
			cost += pair.cost
		}
		if cost > room {
			continue
		}
		take(c)
		room -= cost
		if pair != nil {
			take(pair)
		}
		if !c.reply || pair != nil {
			userKept[c.turn] = true
		}
	}
	if best == nil { // the room was too small for any note
		c, ok, err := s.walker(&room).peek()
		if err != nil {
			return nil, err
		}
		if ok {
			n := c.note
			best = &n
		}
	}
	idxs := make([]int, 0, len(kept))
	for i := range kept {
		idxs = append(idxs, i)
	}
	slices.Sort(idxs)
	out := make([]note, 0, len(idxs))
	for _, i := range idxs {
		out = append(out, kept[i])
	}
	// The estimate counts a separator a note; check the real text and drop
	// the weakest notes while it is over.
	for len(out) > 1 && e.Counter.Count(renderNotes(out)) > budget {
		weakest := 0
		for i, c := range out {
			if c.score <= out[weakest].score {
				weakest = i
			}
		}
		out = slices.Delete(out, weakest, weakest+1)
	}
	if len(out) == 0 {
		best.text = clipWords(best.text, max(budget/4, 4))
		out = []note{*best}
	}
	return out, nil
}

// fit is noteSet.fit over candidates scored already.
func (e *Extractive) fit(cands []note, budget int) []note {
	s := &noteSet{e: e, scored: cands, heldAll: true}
	out, _ := s.fit(budget)
	return out
}

func idxOf(c *cand) int {
	if c == nil {
		return -1
	}
	return c.idx
}

type gainItem struct {
	c    *cand
	gain float64
}

// gainQueue is a max-heap of notes by gain; ties go to the newer note.
type gainQueue struct{ items []gainItem }

// before reports whether a note of gain g and place idx goes before it.
func (q *gainQueue) before(g float64, idx int, it gainItem) bool {
	if g != it.gain {
		return g > it.gain
	}
	return idx > it.c.idx
}

func (q *gainQueue) Len() int { return len(q.items) }
func (q *gainQueue) Less(a, b int) bool {
	return q.before(q.items[a].gain, q.items[a].c.idx, q.items[b])
}
func (q *gainQueue) Swap(a, b int) { q.items[a], q.items[b] = q.items[b], q.items[a] }
func (q *gainQueue) Push(x any)    { q.items = append(q.items, x.(gainItem)) }
func (q *gainQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// minNoteCost is the least a note costs: a token (its text is never
// empty) and its separator. Once the room left is less, the walk down the
// candidates stops: nothing further can be kept.
const minNoteCost = 2
