package importer

// The tool-call graph around a Claude Code path. Claude Code 2.1 writes
// each tool_use of one answer as an assistant entry of its own, chained
// (A1 -> A2 -> A3, one message.id), and each tool_result as a child of
// the entry holding its call (R1 under A1, R2 under A2); the conversation
// goes on from whichever result was written last. A root-to-leaf path
// holds one of those results and misses the others (and, when it goes on
// from R1, the calls A2, A3 too). fold gathers them back: the entries of
// one answer, on the path or chained off it, then every result of any of
// them, in call order. Only a user entry that is no tool result (a new
// prompt under an older entry: a rewind), or an assistant entry of
// another message (a regenerated answer), stays a branch.

import (
	"cmp"
	"encoding/json"
	"slices"
)

// firstBlockType is the type of the first content block of a message
// (raw), "" when its content is no list of blocks.
func firstBlockType(msg []byte) string {
	var typ string
	_ = topLevel(msg, func(k, v []byte) bool {
		if string(k) != "content" {
			return true
		}
		_ = elements(v, func(el []byte) error {
			_ = topLevel(el, func(k, v []byte) bool {
				if string(k) == "type" {
					typ = str(v)
					return false
				}
				return true
			})
			return errScan // the first block only
		})
		return false
	})
	return typ
}

// ccExtra is an entry off the path that fold gathers into it.
type ccExtra struct {
	anchor int32 // the path's assistant entry its answer's chain leaves from
	holder int32 // the assistant entry holding its call (a result), or itself
	kind   byte  // 'A' an assistant entry of the chain, 'R' a result, 'T' neither (progress)
}

// messageID reads back the message.id of n's entry.
func (r *ccReader) messageID(n *ccNode) string {
	b, err := r.read(n.at(), n.n)
	if err != nil {
		return ""
	}
	id := ""
	_ = topLevel(b, func(k, v []byte) bool {
		if string(k) != "message" {
			return true
		}
		_ = topLevel(v, func(k, v []byte) bool {
			if string(k) == "id" {
				id = str(v)
				return false
			}
			return true
		})
		return false
	})
	return id
}

// holderOf is the assistant entry i hangs under, through entries that
// are no message (progress, attachments); -1 when none.
func (x *ccIndex) holderOf(i int, extras map[int32]ccExtra) int {
	for range 8 {
		if i < 0 {
			return -1
		}
		n := x.at(i)
		if n.asst() {
			return i
		}
		if e, ok := extras[int32(i)]; ok && e.kind == 'T' {
			return int(e.holder)
		}
		if n.msg() {
			return -1
		}
		p, ok := x.parentOf(i)
		if !ok {
			return -1
		}
		i = p
	}
	return -1
}

// resultHolder is the assistant entry result i answers (-1: none).
func (x *ccIndex) resultHolder(i int, extras map[int32]ccExtra) int {
	p, ok := x.parentOf(i)
	if !ok {
		return -1
	}
	return x.holderOf(p, extras)
}

// fold returns path (entries of the sidechain or not, as side says) with
// the tool-call graph around it: each run of assistant entries of the
// path, with the entries of the same message chained off it, then the
// results of any of them (on the path or off it) ordered by the entry
// holding the call, then the file. hold is where the entries a cursor
// must not pass begin (len(out): none): a last answer some of whose
// calls wait for results while a later call has one (its next import
// would put the awaited result before one stored already).
func (x *ccIndex) fold(rd *ccReader, path []int32, side bool) (out []int32, hold int) {
	on := newBits(x.n)
	on.setAll(path)
	extras, byAnchor := x.offPath(rd, on, side)
	out = make([]int32, 0, len(path)+len(extras))
	hold = -1
	done := newBits(x.n)
	holders := map[int32]bool{} // the run's assistant entries (reused)
	for k := 0; k < len(path); k++ {
		i := path[k]
		if done.has(int(i)) {
			continue
		}
		if !x.at(int(i)).asst() {
			out = append(out, i)
			done.set(int(i))
			continue
		}
		// The run of the path's assistant entries from k, each the
		// previous one's child, and the entries chained off them.
		j := k
		for j+1 < len(path) && x.at(int(path[j+1])).asst() {
			if p, _ := x.parentOf(int(path[j+1])); p != int(path[j]) {
				break
			}
			j++
		}
		var asst, results []int32
		clear(holders)
		for _, a := range path[k : j+1] {
			asst = append(asst, a)
			for _, e := range byAnchor[a] {
				switch extras[e].kind {
				case 'A':
					asst = append(asst, e)
				case 'R':
					results = append(results, e)
				}
			}
		}
		slices.Sort(asst)
		for _, a := range asst {
			holders[a] = true
		}
		// The results on the path after the run that answer its calls.
		for m := j + 1; m < len(path); m++ {
			n := x.at(int(path[m]))
			if n.msg() && !n.result() {
				break
			}
			if n.result() && holders[int32(x.resultHolder(int(path[m]), extras))] {
				results = append(results, path[m])
			}
		}
		holderOf := func(r int32) int32 {
			if e, ok := extras[r]; ok {
				return e.holder
			}
			return int32(x.resultHolder(int(r), extras))
		}
		slices.SortFunc(results, func(a, b int32) int {
			if c := cmp.Compare(holderOf(a), holderOf(b)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		start := len(out)
		for _, e := range append(asst, results...) {
			out = append(out, e)
			done.set(int(e))
		}
		if tail := func() bool {
			for m := j + 1; m < len(path); m++ {
				if !done.has(int(path[m])) {
					return false
				}
			}
			return true
		}(); tail && x.awaited(rd, asst, results) {
			hold = start
		}
		k = j
	}
	if hold < 0 {
		hold = len(out)
	}
	return out, hold
}

// offPath finds the entries off the path (on) that the tool-call graph
// gathers into it: an assistant entry of the same message as its parent
// ('A'), a result of a call ('R'), an entry chained off a call ('T'),
// each with the path's entry it goes with (its anchor).
func (x *ccIndex) offPath(rd *ccReader, on bits, side bool) (extras map[int32]ccExtra, byAnchor map[int32][]int32) {
	byAnchor = map[int32][]int32{}
	anchorOf := func(p int) int32 {
		if on.has(p) {
			return int32(p)
		}
		return extras[int32(p)].anchor
	}
	for i := 0; i < x.n; i++ {
		nd := x.at(i)
		if on.has(i) || nd.side() != side {
			continue
		}
		p, ok := x.parentOf(i)
		if !ok {
			continue
		}
		pe, pex := extras[int32(p)]
		if !on.has(p) && !pex {
			continue
		}
		pn := x.at(p)
		var e ccExtra
		switch {
		case nd.asst() && pn.asst() && (!pex || pe.kind == 'A'):
			mi := rd.messageID(nd)
			if mi == "" || mi != rd.messageID(pn) {
				continue // another answer: a branch
			}
			e = ccExtra{anchor: anchorOf(p), holder: int32(i), kind: 'A'}
		case nd.result():
			h := x.holderOf(p, extras)
			if h < 0 || !on.has(h) && extras[int32(h)].kind != 'A' {
				continue
			}
			e = ccExtra{anchor: anchorOf(h), holder: int32(h), kind: 'R'}
		case !nd.msg() && (pn.asst() || pex && pe.kind == 'T'):
			h := x.holderOf(p, extras)
			if h < 0 || !on.has(h) && extras[int32(h)].kind != 'A' {
				continue
			}
			e = ccExtra{anchor: anchorOf(h), holder: int32(h), kind: 'T'}
		default:
			continue
		}
		if extras == nil {
			extras = map[int32]ccExtra{}
		}
		extras[int32(i)] = e
		byAnchor[e.anchor] = append(byAnchor[e.anchor], int32(i))
	}
	return extras, byAnchor
}

// awaited reports whether a call of the assistant entries asst has no
// result among results while a later call has one.
func (x *ccIndex) awaited(rd *ccReader, asst, results []int32) bool {
	answered := map[string]bool{}
	for _, r := range results {
		for _, b := range x.blocks(rd, r) {
			answered[b.ToolUseID] = true
		}
	}
	missing := false
	for _, a := range asst {
		for _, b := range x.blocks(rd, a) {
			if b.Type != "tool_use" {
				continue
			}
			if !answered[b.ID] {
				missing = true
			} else if missing {
				return true
			}
		}
	}
	return false
}

// blocks reads back the content blocks of i's message.
func (x *ccIndex) blocks(rd *ccReader, i int32) []block {
	n := x.at(int(i))
	b, err := rd.read(n.at(), n.n)
	if err != nil {
		return nil
	}
	var out []block
	_ = topLevel(b, func(k, v []byte) bool {
		if string(k) != "message" {
			return true
		}
		_ = topLevel(v, func(k, v []byte) bool {
			if string(k) == "content" {
				_ = json.Unmarshal(v, &out)
				return false
			}
			return true
		})
		return false
	})
	return out
}
