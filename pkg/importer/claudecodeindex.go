package importer

// The index of a Claude Code session: a node of 32 bytes per entry (a
// session of a million entries indexes in 32 MB), its ids hashed, its
// parent a node number once the file is read; the few times and uuids
// wanted are read back from the file.

import (
	"cmp"
	"slices"
	"sort"
)

// ccNode is one entry of the graph.
type ccNode struct {
	id uint64 // idHash of its uuid
	// parent: idHash of its parent's uuid while indexing, then (link) the
	// parent's number + 1; 0 is none.
	parent uint64
	// off: where its line starts <<4 | a user entry of tool results (its
	// first block one)<<3 | assistant<<2 | sidechain<<1 | user or assistant
	off  uint64
	n    int32 // its line's length
	line int32
}

func (n *ccNode) at() int64    { return int64(n.off >> 4) }
func (n *ccNode) side() bool   { return n.off&2 != 0 }
func (n *ccNode) msg() bool    { return n.off&1 != 0 }
func (n *ccNode) asst() bool   { return n.off&4 != 0 }
func (n *ccNode) result() bool { return n.off&8 != 0 }

// ccIndex is the nodes in file order.
type ccIndex struct {
	blockList[ccNode]
	cycle bool // a path met an entry twice: parentUuid goes round
}

// parentOf is node i's parent in the index.
func (x *ccIndex) parentOf(i int) (int, bool) {
	p := x.at(i).parent
	return int(p) - 1, p != 0
}

// link turns each node's parent hash into the parent's number. A uuid
// written twice is its later line's, as a map filled in file order says.
func (x *ccIndex) link() {
	order := make([]int32, x.n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(x.at(int(a)).id, x.at(int(b)).id); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for i := 0; i < x.n; i++ {
		nd := x.at(i)
		h := nd.parent
		j := sort.Search(len(order), func(k int) bool { return x.at(int(order[k])).id > h })
		if h != 0 && j > 0 && x.at(int(order[j-1])).id == h {
			nd.parent = uint64(order[j-1]) + 1
		} else {
			nd.parent = 0
		}
	}
}

// path is the path from the root to leaf, following parents.
func (x *ccIndex) path(leaf int) []int32 {
	var path []int32
	seen := newBits(x.n)
	for i, ok := leaf, true; ok; i, ok = x.parentOf(i) {
		if seen.has(i) {
			x.cycle = true // the path stops where it would go round
			break
		}
		seen.set(i)
		path = append(path, int32(i))
	}
	slices.Reverse(path)
	return path
}

// unreached counts the user and assistant entries (of the sidechain or
// not, as side says) under which no leaf is: entries of a cycle of
// parentUuid, which no path holds.
func (x *ccIndex) unreached(side bool) int {
	child := newBits(x.n)
	for i := 0; i < x.n; i++ {
		if p, ok := x.parentOf(i); ok {
			child.set(p)
		}
	}
	reach := newBits(x.n)
	for i := 0; i < x.n; i++ {
		if child.has(i) {
			continue
		}
		for j, ok := i, true; ok && !reach.has(j); j, ok = x.parentOf(j) {
			reach.set(j)
		}
	}
	n := 0
	for i := 0; i < x.n; i++ {
		if nd := x.at(i); !reach.has(i) && nd.msg() && nd.side() == side {
			n++
		}
	}
	return n
}

// sidePath keeps the sidechain entries of path.
func (x *ccIndex) sidePath(path []int32) []int32 {
	var out []int32
	for _, i := range path {
		if x.at(int(i)).side() {
			out = append(out, i)
		}
	}
	return out
}

// bits is a set of node numbers.
type bits []uint64

func newBits(n int) bits      { return make(bits, (n+63)/64) }
func (b bits) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bits) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bits) setAll(p []int32) {
	for _, i := range p {
		b.set(int(i))
	}
}

// ccReader reads nodes' lines back from the file, mostly in order.
type ccReader struct {
	rd  seqReader
	buf []byte
}

func newCCReader(src *Source) *ccReader {
	return &ccReader{rd: seqReader{src: src}, buf: make([]byte, 0, 64<<10)}
}

// read is the line of n bytes at off (valid until the next read).
func (r *ccReader) read(off int64, n int32) ([]byte, error) {
	r.buf = slices.Grow(r.buf[:0], int(n))[:n]
	err := r.rd.read(r.buf, off)
	return r.buf, err
}

// node reads back the uuid and time of n.
func (r *ccReader) node(n *ccNode) (uuid string, ms int64) { return r.head(n.at(), n.n) }

// head reads back the uuid and time of the entry of n bytes at off.
func (r *ccReader) head(off int64, n int32) (uuid string, ms int64) {
	b, err := r.read(off, n)
	if err != nil {
		return "", 0
	}
	_ = topLevel(b, func(k, v []byte) bool {
		switch string(k) {
		case "uuid":
			uuid = str(v)
		case "timestamp":
			ms = entryMS(str(v))
		}
		return true
	})
	return uuid, ms
}

// entryMS is an entry's time in ms since the epoch; 0 is none.
func entryMS(ts string) int64 {
	return max(parseTime(ts).UnixMilli(), 0)
}
