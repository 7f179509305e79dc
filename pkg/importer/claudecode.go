package importer

// Claude Code sessions: ~/.claude/projects/<project>/<sessionId>.jsonl, one
// entry a line, linked by uuid/parentUuid into a graph whose active branch
// ends at the latest leaf; a compaction starts a new root linked back by
// logicalParentUuid. Sub-agents write <sessionId>/subagents/agent-<id>.jsonl.
// Read in two passes: an index of every entry (ids, time, place in the
// file), then the entries of the active branch, one at a time.

import (
	"path/filepath"
	"slices"
	"strings"
)

type claudeCode struct{}

// It reads a grown file from the last import's cursor (claudecoderesume.go).
var _ Resumer = claudeCode{}

func (claudeCode) Name() string  { return "claude-code" }
func (claudeCode) Growing() bool { return true }
func (claudeCode) Match(p string) bool {
	return strings.HasSuffix(p, ".jsonl")
}

// ccHead is what the index keeps of each line.
type ccHead struct {
	Type          string  `json:"type"`
	UUID          string  `json:"uuid"`
	Parent        *string `json:"parentUuid"`
	LogicalParent string  `json:"logicalParentUuid"`
	Timestamp     string  `json:"timestamp"`
	IsSidechain   bool    `json:"isSidechain"`
	SessionID     string  `json:"sessionId"`
	AgentID       string  `json:"agentId"`
	Version       string  `json:"version"`
	Cwd           string  `json:"cwd"`
	GitBranch     string  `json:"gitBranch"`
	AITitle       string  `json:"aiTitle"`
	Summary       string  `json:"summary"`
	LeafUUID      string  `json:"leafUuid"`
	raw           []byte  // the message, undecoded
}

// scan fills h from the line's top-level keys, skipping the message but
// for its model (wanted once).
func (h *ccHead) scan(b []byte) error {
	return topLevel(b, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			h.Type = str(v)
		case "uuid":
			h.UUID = str(v)
		case "parentUuid":
			if p := str(v); p != "" {
				h.Parent = &p
			}
		case "logicalParentUuid":
			h.LogicalParent = str(v)
		case "timestamp":
			h.Timestamp = str(v)
		case "isSidechain":
			h.IsSidechain = string(v) == "true"
		case "sessionId":
			h.SessionID = str(v)
		case "agentId":
			h.AgentID = str(v)
		case "version":
			h.Version = str(v)
		case "cwd":
			h.Cwd = str(v)
		case "gitBranch":
			h.GitBranch = str(v)
		case "aiTitle":
			h.AITitle = str(v)
		case "summary":
			h.Summary = str(v)
		case "leafUuid":
			h.LeafUUID = str(v)
		case "message":
			h.raw = v
		}
		return true
	})
}

// model is the message's model, decoded only when asked.
func (h *ccHead) model() string {
	var m struct {
		Model string `json:"model"`
	}
	_ = topLevel(h.raw, func(k, v []byte) bool {
		if string(k) == "model" {
			m.Model = str(v)
			return false
		}
		return true
	})
	return m.Model
}

// idHash is the 64-bit FNV-1a of a uuid ("" is 0: no parent).
func idHash(s string) uint64 {
	if s == "" {
		return 0
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h | 1 // never 0
}

// ccAside is a line off the graph, noted when past the cursor.
type ccAside struct {
	line int32
	kind int32 // in ccIndexer.kinds
}

// ccSkip is a line that is no entry, named when past the cursor.
type ccSkip struct {
	line int32
	err  error
}

// ccIndexer is the first pass: every entry's node, what the session says
// of itself, and the lines off the graph.
type ccIndexer struct {
	src            *Source
	x              ccIndex
	meta           Meta
	session, agent string
	asides         []ccAside
	skips          []ccSkip
	kinds          []string
	summaries      map[uint64]string
	sides          int // sidechain entries
	// resumed: read from a cursor's offset (Resume), the lines past it
	// alone.
	resumed bool
	// end is where the lines read end, after line endLine.
	end     int64
	endLine int
}

func (ix *ccIndexer) line(l line) error {
	ix.end, ix.endLine = l.end, l.n
	var h ccHead
	if err := h.scan(l.text); err != nil {
		// A torn line amid the file: skipped, named by the walk (once:
		// past the cursor).
		ix.skips = append(ix.skips, ccSkip{int32(l.n), inputErr(l.n, "", "skipped: not a Claude Code entry: %v", err)})
		return nil
	}
	if ix.session == "" {
		ix.session = h.SessionID
	}
	if ix.agent == "" && h.AgentID != "" && h.IsSidechain {
		ix.agent = h.AgentID
	}
	meta := &ix.meta
	if meta.Version == "" {
		meta.Version = h.Version
	}
	if meta.Cwd == "" {
		meta.Cwd = h.Cwd
	}
	if meta.GitBranch == "" {
		meta.GitBranch = h.GitBranch
	}
	if meta.Model == "" && h.Type == "assistant" {
		if m := h.model(); !strings.HasPrefix(m, "<") {
			meta.Model = m
		}
	}
	switch {
	case h.Type == "ai-title":
		meta.Title = h.AITitle // the last wins
		return nil
	case h.Type == "summary":
		if ix.summaries == nil {
			ix.summaries = map[uint64]string{}
		}
		ix.summaries[idHash(h.LeafUUID)] = h.Summary
		return nil
	case h.UUID == "":
		k := slices.Index(ix.kinds, h.Type)
		if k < 0 {
			k, ix.kinds = len(ix.kinds), append(ix.kinds, h.Type)
		}
		ix.asides = append(ix.asides, ccAside{int32(l.n), int32(k)})
		return nil
	}
	parent := h.LogicalParent
	if h.Parent != nil && *h.Parent != "" {
		parent = *h.Parent
	}
	off := uint64(l.off) << 4
	if h.IsSidechain {
		off |= 2
		ix.sides++
	}
	switch h.Type {
	case "assistant":
		off |= 4 | 1
	case "user":
		off |= 1
		if firstBlockType(h.raw) == "tool_result" {
			off |= 8
		}
	}
	ix.x.add(ccNode{id: idHash(h.UUID), parent: idHash(parent), off: off, n: int32(len(l.text)), line: int32(l.n)})
	return nil
}

func (claudeCode) Decode(src *Source, emit func(*Session) error) error {
	ix := &ccIndexer{src: src}
	if err := eachLine(src, src.Reader(), 0, 0, ix.line); err != nil {
		return err
	}
	x := &ix.x
	if x.n == 0 {
		// No entry of the graph (the wrong --from?): what the lines were
		// is said.
		for _, a := range ix.skips {
			src.Skip(a.err)
		}
		for _, a := range ix.asides {
			src.Note(ix.kinds[a.kind])
		}
		return nil
	}
	x.link()
	session, meta := ix.session, ix.meta
	sub := ix.agent != ""
	if session == "" {
		session = strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	}
	s := &Session{ID: session, Meta: meta}
	if sub {
		s.ID, s.Meta.Parent = "agent-"+ix.agent, session
	}
	hasChild := newBits(x.n)
	for i := 0; i < x.n; i++ {
		if p, ok := x.parentOf(i); ok && x.at(i).side() == sub {
			hasChild.set(p)
		}
	}
	// The active leaf: the latest leaf of the main chain (of the
	// sub-agent's, in its file); later in the file wins a tie.
	rd := newCCReader(src)
	leaf, leafMS := -1, int64(0)
	for i := 0; i < x.n; i++ {
		if n := x.at(i); n.side() == sub && !hasChild.has(i) {
			if _, ms := rd.node(n); leaf < 0 || ms >= leafMS {
				leaf, leafMS = i, ms
			}
		}
	}
	lost := x.unreached(sub)
	if leaf < 0 {
		for range lost {
			src.Note("entry in a cycle of parentUuid")
		}
		return nil
	}
	path := x.path(leaf)
	if x.cycle {
		src.Note("parentUuid going round (the path stops there)")
	}
	for range lost {
		src.Note("entry in a cycle of parentUuid")
	}
	if s.Meta.Title == "" && ix.summaries != nil {
		// only a summary of a leaf this file holds
		for _, i := range path {
			if t := ix.summaries[x.at(int(i)).id]; t != "" {
				s.Meta.Title = t
			}
		}
	}
	folded, hold := x.fold(rd, path, sub)
	if !src.Branches && (sub || ix.sides == 0) {
		// One conversation of the file: the next import may go on from
		// where this one read to.
		s.Walk = ix.walk(src, x.steps(folded), hold, true, &Point{Offset: ix.end, Line: ix.endLine, State: &ccResume{Session: s.ID, Sub: sub}})
		path, folded, hasChild, ix.x = nil, nil, nil, ccIndex{} // all that is walked is in the steps
	} else {
		s.Walk = ix.walk(src, x.steps(folded), hold, true, nil)
	}
	if src.Branches {
		s.Branches = ix.branches(src, rd, folded, hasChild, leaf, sub)
	}
	if err := emit(s); err != nil || sub {
		return err
	}
	return ix.sidechains(src, session, meta, emit)
}

// branches are the branches off the active path (folded, ending at leaf):
// one for each other leaf of the main chain (of the sub-agent's, as sub
// says), from its first entry off the path. A leaf the graph gathered into
// the path (a result of a call of one answer) is no branch.
func (ix *ccIndexer) branches(src *Source, rd *ccReader, folded []int32, hasChild bits, leaf int, sub bool) []Branch {
	x := &ix.x
	on := newBits(x.n)
	on.setAll(folded)
	var out []Branch
	for i := 0; i < x.n; i++ {
		if n := x.at(i); n.side() != sub || hasChild.has(i) || i == leaf || !n.msg() {
			continue
		}
		bp := x.path(i)
		for _, j := range bp {
			if !on.has(int(j)) {
				key, _ := rd.node(x.at(int(j)))
				bf, bh := x.fold(rd, bp, sub)
				out = append(out, Branch{Key: key, Walk: ix.walk(src, x.steps(bf), bh, false, nil)})
				break
			}
		}
	}
	return out
}

// sidechains emits the sidechains written inline (sub-agents, before they
// had files of their own): each chain, from its root to its latest leaf,
// is a session of its own, linked to this one.
func (ix *ccIndexer) sidechains(src *Source, session string, meta Meta, emit func(*Session) error) error {
	x := &ix.x
	if ix.sides == 0 {
		return nil
	}
	hasSide := newBits(x.n)
	for i := 0; i < x.n; i++ {
		if p, ok := x.parentOf(i); ok && x.at(i).side() {
			hasSide.set(p)
		}
	}
	rd := newCCReader(src)
	type latest struct {
		leaf int
		ms   int64
	}
	byRoot := map[int32]latest{}
	var roots []int32
	for i := 0; i < x.n; i++ {
		if !x.at(i).side() || hasSide.has(i) {
			continue
		}
		p := x.sidePath(x.path(i))
		if len(p) == 0 {
			continue
		}
		_, ms := rd.node(x.at(i))
		l, ok := byRoot[p[0]]
		if !ok {
			roots = append(roots, p[0])
		}
		if !ok || ms >= l.ms {
			byRoot[p[0]] = latest{i, ms}
		}
	}
	for _, root := range roots {
		key, _ := rd.node(x.at(int(root)))
		sc := &Session{ID: session + "-sidechain-" + shortKey(key), Meta: meta}
		sc.Meta.Parent, sc.Meta.Title = session, ""
		p, hold := x.fold(rd, x.sidePath(x.path(byRoot[root].leaf)), true)
		sc.Walk = ix.walk(src, x.steps(p), hold, false, nil)
		if err := emit(sc); err != nil {
			return err
		}
	}
	return nil
}
