package importer

// A grown Claude Code session read from where the last import stopped:
// what was written since must go on from the last entry imported, along
// one chain to the latest leaf, with no sidechain written inline; else
// the file is read from its start (a rewind or a branch off what was
// imported shows there).

import "encoding/json"

// ccResume is what a Claude Code read needs to go on from a cursor: the
// session it is of, and whether it is a sub-agent's.
type ccResume struct {
	Session string `json:"session,omitempty"`
	Sub     bool   `json:"sub,omitempty"`
}

func (claudeCode) Resume(src *Source, at At, emit func(*Session) error) error {
	var f ccResume
	if json.Unmarshal(at.State, &f) != nil || f.Session == "" || at.Last == "" {
		return errRestart
	}
	ix := &ccIndexer{src: src, resumed: true}
	if err := eachLineAt(src, &at, ix.line); err != nil {
		return err
	}
	if !f.Sub && ix.sides > 0 {
		return errRestart
	}
	// The title it states since; the model stays the first one's.
	s := &Session{ID: f.Session, Meta: Meta{Title: ix.meta.Title}}
	end := &Point{Offset: ix.end, Line: ix.endLine, State: &f}
	x := &ix.x
	if x.n == 0 {
		if ix.end == 0 {
			end.Offset, end.Line = at.Offset, at.Line // nothing read: the cursor stays where it was
		}
		s.Walk = ix.walk(src, nil, 0, true, end)
		return emit(s)
	}
	x.link()
	hasChild := newBits(x.n)
	for i := 0; i < x.n; i++ {
		if p, ok := x.parentOf(i); ok && x.at(i).side() == f.Sub {
			hasChild.set(p)
		}
	}
	rd := newCCReader(src)
	// Entries past the offset go on from the last one imported, by one
	// entry: one under an entry before it other than that (a result of a
	// call imported before, a rewind), or a second one under it (a result
	// of its call beside the next call), is in the graph around what was
	// imported: read from the start.
	under := 0
	for i := 0; i < x.n; i++ {
		if _, ok := x.parentOf(i); !ok {
			p := ccParent(rd, x.at(i))
			if p != "" {
				under++
			}
			if p != "" && p != at.Last || under > 1 {
				return errRestart
			}
		}
	}
	leaf, leafMS := -1, int64(0)
	for i := 0; i < x.n; i++ {
		if n := x.at(i); n.side() == f.Sub && !hasChild.has(i) {
			if _, ms := rd.node(n); leaf < 0 || ms >= leafMS {
				leaf, leafMS = i, ms
			}
		}
	}
	if leaf < 0 {
		return errRestart
	}
	path := x.path(leaf)
	if ccParent(rd, x.at(int(path[0]))) != at.Last {
		return errRestart
	}
	folded, hold := x.fold(rd, path, f.Sub)
	s.Walk = ix.walk(src, x.steps(folded), hold, true, end)
	ix.x = ccIndex{}
	return emit(s)
}

// ccParent reads back the uuid n's entry names as its parent.
func ccParent(rd *ccReader, n *ccNode) string {
	b, err := rd.read(n.at(), n.n)
	if err != nil {
		return ""
	}
	var h ccHead
	if h.scan(b) != nil {
		return ""
	}
	if h.Parent != nil && *h.Parent != "" {
		return *h.Parent
	}
	return h.LogicalParent
}
