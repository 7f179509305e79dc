package importer

// Claude Code sessions: ~/.claude/projects/<project>/<sessionId>.jsonl, one
// entry a line, linked by uuid/parentUuid into a graph whose active branch
// ends at the latest leaf; a compaction starts a new root linked back by
// logicalParentUuid. Sub-agents write <sessionId>/subagents/agent-<id>.jsonl.
// Read in two passes: an index of every entry (ids, time, place in the
// file), then the entries of the active branch, one at a time.

import (
	"path/filepath"
	"strings"
)

type claudeCode struct{}

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

// ccNode is one entry of the graph, small: a session of a million entries
// indexes in tens of megabytes. Ids are kept as hashes; the few wanted as
// text are read back from the file.
type ccNode struct {
	id, parent uint64
	ms         int64
	off        int64
	n, line    int32
	side, msg  bool
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

// uuidAt reads node n's uuid back from the file.
func uuidAt(src *Source, n ccNode) string {
	buf := make([]byte, n.n)
	if _, err := src.R.ReadAt(buf, n.off); err != nil {
		return ""
	}
	var h ccHead
	_ = h.scan(buf)
	return h.UUID
}

func (claudeCode) Decode(src *Source, emit func(*Session) error) error {
	var nodes []ccNode
	byID := map[uint64]int32{}
	var meta Meta
	var session, agent string
	type aside struct {
		line int
		what string
	}
	var asides []aside // lines off the graph: noted when past the cursor
	summaries := map[uint64]string{}
	err := eachLine(src, src.Reader(), 0, 0, func(l line) error {
		var h ccHead
		if err := h.scan(l.text); err != nil {
			return inputErr(l.n, "", "not a Claude Code entry: %v", err)
		}
		if session == "" {
			session = h.SessionID
		}
		if agent == "" && h.AgentID != "" && h.IsSidechain {
			agent = h.AgentID
		}
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
			summaries[idHash(h.LeafUUID)] = h.Summary
			return nil
		case h.UUID == "":
			asides = append(asides, aside{l.n, h.Type})
			return nil
		}
		parent := h.LogicalParent
		if h.Parent != nil && *h.Parent != "" {
			parent = *h.Parent
		}
		byID[idHash(h.UUID)] = int32(len(nodes))
		nodes = append(nodes, ccNode{id: idHash(h.UUID), parent: idHash(parent), ms: parseTime(h.Timestamp).UnixMilli(), off: l.off,
			n: int32(len(l.text)), line: int32(l.n), side: h.IsSidechain, msg: h.Type == "user" || h.Type == "assistant"})
		return nil
	})
	if err != nil {
		return err
	}
	if len(nodes) == 0 {
		return nil
	}
	sub := agent != ""
	if session == "" {
		session = strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	}
	s := &Session{ID: session, Meta: meta}
	if sub {
		s.ID, s.Meta.Parent = "agent-"+agent, session
	}
	hasChild := make([]bool, len(nodes))
	for _, n := range nodes {
		if p, ok := byID[n.parent]; ok && n.side == sub {
			hasChild[p] = true
		}
	}
	// The active leaf: the latest leaf of the main chain (of the
	// sub-agent's, in its file); later in the file wins a tie.
	leaf := -1
	for i, n := range nodes {
		if n.side == sub && !hasChild[i] && (leaf < 0 || n.ms >= nodes[leaf].ms) {
			leaf = i
		}
	}
	if leaf < 0 {
		return nil
	}
	path := ccPath(nodes, byID, leaf)
	if s.Meta.Title == "" {
		for _, i := range path {
			if t := summaries[nodes[i].id]; t != "" {
				s.Meta.Title = t // only a summary of a leaf this file holds
			}
		}
	}
	on := make(map[int]bool, len(path))
	for _, i := range path {
		on[i] = true
	}
	// walk goes over path; the main session's walk also counts the lines
	// off the graph (once per import, only those past the cursor).
	walk := func(path []int, main bool) func(int, func(*Entry) error) error {
		return func(skip int, fn func(*Entry) error) error {
			after := 0
			if skip > 0 && skip <= len(path) {
				after = int(nodes[path[skip-1]].line)
			}
			for _, a := range asides {
				if main && a.line > after {
					src.Note(a.what)
				}
			}
			d := ccDecoder{src: src}
			rd := seqReader{src: src}
			buf := make([]byte, 0, 64<<10)
			for k, i := range path {
				n := nodes[i]
				e := &Entry{Line: int(n.line)}
				if n.ms > 0 {
					e.Time = timeMS(n.ms)
				}
				switch {
				case k >= skip:
					buf = append(buf[:0], make([]byte, n.n)...)
					if err := rd.read(buf, n.off); err != nil {
						return err
					}
					recs, err := d.entry(buf, int(n.line))
					if err != nil {
						return err
					}
					e.ID, e.Records, e.Held = d.uuid, recs, d.held
				case k == skip-1:
					e.ID = uuidAt(src, n) // the one the cursor names
				}
				if err := fn(e); err != nil {
					return err
				}
			}
			d.done()
			return nil
		}
	}
	s.Walk = walk(path, true)
	if src.Branches {
		for i, n := range nodes {
			if n.side != sub || hasChild[i] || i == leaf || !n.msg {
				continue
			}
			bp := ccPath(nodes, byID, i)
			for _, j := range bp {
				if !on[j] {
					s.Branches = append(s.Branches, Branch{Key: uuidAt(src, nodes[j]), Walk: walk(bp, false)})
					break
				}
			}
		}
	}
	if err := emit(s); err != nil || sub {
		return err
	}
	// Sidechains written inline (sub-agents, before they had files of
	// their own): each chain, from its root to its latest leaf, is a
	// session of its own, linked to this one.
	hasSide := make([]bool, len(nodes))
	for _, n := range nodes {
		if p, ok := byID[n.parent]; ok && n.side {
			hasSide[p] = true
		}
	}
	latest := map[int]int{} // root -> latest leaf
	var roots []int
	for i, n := range nodes {
		if !n.side || hasSide[i] {
			continue
		}
		p := sidePath(nodes, ccPath(nodes, byID, i))
		if len(p) == 0 {
			continue
		}
		l, ok := latest[p[0]]
		if !ok {
			roots = append(roots, p[0])
		}
		if !ok || n.ms >= nodes[l].ms {
			latest[p[0]] = i
		}
	}
	for _, root := range roots {
		sc := &Session{ID: session + "-sidechain-" + shortKey(uuidAt(src, nodes[root])), Meta: meta}
		sc.Meta.Parent, sc.Meta.Title = session, ""
		sc.Walk = walk(sidePath(nodes, ccPath(nodes, byID, latest[root])), false)
		if err := emit(sc); err != nil {
			return err
		}
	}
	return nil
}

// sidePath keeps the sidechain entries of path.
func sidePath(nodes []ccNode, path []int) []int {
	var out []int
	for _, i := range path {
		if nodes[i].side {
			out = append(out, i)
		}
	}
	return out
}

// ccPath is the path from the root to leaf, following parents.
func ccPath(nodes []ccNode, byID map[uint64]int32, leaf int) []int {
	var path []int
	for i, ok := int32(leaf), true; ok && len(path) <= len(nodes); i, ok = byID[nodes[i].parent] {
		path = append(path, int(i))
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	return path
}
