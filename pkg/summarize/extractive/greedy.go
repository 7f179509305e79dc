package extractive

import (
	"container/heap"
	"slices"
)

// fit keeps the best scoring notes within budget tokens, in their order;
// when none fits, the shortest note, whole (a note is never cut: doc.go),
// and Summarize drops the heading and notes until the text fits.
func (s *noteSet) fit(budget int) ([]note, error) {
	e := s.e
	room := budget - e.Counter.Count(headingFor(s.named, s.tools)) - 1
	p := newPicks(s)
	kept, userKept, take, weigh := p.kept, p.userKept, p.take, p.weigh
	// Greedy on what each note adds to the notes taken so far: a note's
	// gain only falls as they grow, so one is taken once its fresh gain
	// still beats every other note's last known gain. The queue holds at
	// most Limits.Batch candidates, the best of a pass over them all (see
	// top), and rest is the best one the pass left out. Once rest would go
	// before the queue's top, a new pass ranks them all by what they add
	// now, leaving out those kept and those that no longer fit; the best
	// of such a pass is taken, so there is a pass per note taken at most,
	// besides the first and a last that finds nothing. When every
	// candidate fits in the queue there is one pass: the plain lazy
	// greedy, starting from the scores.
	queue := &gainQueue{}
	var rest *gainItem
	s.passes = 0
	pass := func() (err error) {
		items, r := s.opening, s.rest
		switch {
		case s.passes > 0:
			items, r, err = s.top(Limits.Batch, func(c *cand) (float64, bool) {
				if _, ok := kept[c.idx]; ok {
					return 0, false
				}
				g, cost := weigh(c)
				return g, cost <= room
			})
		case s.opening == nil: // the first pass is the same for every budget
			items, r, err = s.top(Limits.Batch, func(c *cand) (float64, bool) { return c.score, true })
			s.opening, s.rest = items, r
		}
		if err != nil {
			return err
		}
		if s.passes == 0 {
			items = slices.Clone(items) // the queue reorders it; the next fit starts from it too
		}
		s.passes++
		queue.items, rest = items, r
		heap.Init(queue)
		return nil
	}
	if err := pass(); err != nil {
		return nil, err
	}
	shortest := shortestNote(queue.items)
	for room >= minNoteCost {
		if rest != nil && (queue.Len() == 0 || gainBefore(rest.gain, rest.c.idx, queue.items[0].gain, queue.items[0].c.idx)) {
			if err := pass(); err != nil {
				return nil, err
			}
		}
		if queue.Len() == 0 {
			break
		}
		top := heap.Pop(queue).(gainItem)
		c := top.c
		if _, ok := kept[c.idx]; ok {
			continue
		}
		g, cost := weigh(c)
		if g < top.gain && (queue.Len() > 0 && g < queue.items[0].gain || rest != nil && g < rest.gain) {
			heap.Push(queue, gainItem{c: c, gain: g})
			continue
		}
		if cost > room {
			continue
		}
		pair := c.pair
		if !c.reply || userKept[c.turn] {
			pair = nil
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
	out := e.dropToBudget(inOrder(kept), budget, s.tools)
	if len(out) == 0 && shortest != nil {
		out = []note{*shortest}
	}
	return out, nil
}

// weakestNote is the place of the lowest scoring note among those that
// in accepts, the later among equals (notes has one at least).
func weakestNote(notes []note, in func(note) bool) int {
	weakest := -1
	for i, n := range notes {
		if in(n) && (weakest < 0 || n.score <= notes[weakest].score) {
			weakest = i
		}
	}
	return weakest
}

// picks are the notes a fit has taken so far and the words they hold.
type picks struct {
	s    *noteSet
	kept map[int]note
	// A reply is kept with what the user said in its turn: the user's best
	// note (its pair) comes with it, so no line is an answer to nothing.
	userKept map[int]bool
	held     map[string]bool
}

func newPicks(s *noteSet) *picks {
	p := &picks{s: s, kept: map[int]note{}, userKept: map[int]bool{}, held: map[string]bool{}}
	for _, w := range s.ledgerWords {
		p.held[w] = true
	}
	s.taken = 0
	return p
}

func (p *picks) take(c *cand) {
	p.s.taken++
	p.kept[c.idx] = c.note
	for _, w := range c.words {
		p.held[w] = true
	}
}

// weigh is what c adds to the notes taken, and what it costs: a reply
// brings the user's note of its turn in with it, so the two are
// weighed together, as their cost is counted together.
func (p *picks) weigh(c *cand) (float64, int) {
	g := gain(&c.note, p.held)
	if c.pair == nil || !c.reply || p.userKept[c.turn] {
		return g, c.cost
	}
	if _, pairKept := p.kept[c.pair.idx]; !pairKept {
		r, v := &c.note, &c.pair.note
		g = (g*r.length + gain(v, p.held)*v.length) / (r.length + v.length)
	}
	return g, c.cost + c.pair.cost
}

// shortestNote is the cheapest of the first pass's candidates: what a fit
// keeps when nothing else fits.
func shortestNote(items []gainItem) *note {
	var shortest *note
	for _, it := range items {
		if shortest == nil || it.c.cost < shortest.cost {
			n := it.c.note
			shortest = &n
		}
	}
	return shortest
}

// inOrder is the kept notes in their order in the conversation.
func inOrder(kept map[int]note) []note {
	idxs := make([]int, 0, len(kept))
	for i := range kept {
		idxs = append(idxs, i)
	}
	slices.Sort(idxs)
	out := make([]note, 0, len(idxs))
	for _, i := range idxs {
		out = append(out, kept[i])
	}
	return out
}

// dropToBudget: the estimate counts a separator a note; check the real
// text and drop the weakest notes while it is over. The user's only note
// of a turn goes after its replies, so no line is an answer to nothing.
func (e *Engine) dropToBudget(out []note, budget int, tools bool) []note {
	for len(out) > 1 && e.Counter.Count(renderNotes(out, tools)) > budget {
		weakest := weakestNote(out, func(note) bool { return true })
		if w := out[weakest]; !w.reply {
			users, replies := 0, 0
			for _, n := range out {
				if n.turn == w.turn {
					if n.reply {
						replies++
					} else {
						users++
					}
				}
			}
			if users == 1 && replies > 0 {
				weakest = weakestNote(out, func(n note) bool { return n.turn == w.turn && n.reply })
			}
		}
		out = slices.Delete(out, weakest, weakest+1)
	}
	return out
}

type gainItem struct {
	c    *cand
	gain float64
}

// gainQueue is a max-heap of notes by gain; ties go to the newer note.
type gainQueue struct{ items []gainItem }

// gainBefore reports whether a note of gain g and place idx goes before
// one of gain h and place jdx.
func gainBefore(g float64, idx int, h float64, jdx int) bool {
	if g != h {
		return g > h
	}
	return idx > jdx
}

func (q *gainQueue) Len() int { return len(q.items) }
func (q *gainQueue) Less(a, b int) bool {
	return gainBefore(q.items[a].gain, q.items[a].c.idx, q.items[b].gain, q.items[b].c.idx)
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
