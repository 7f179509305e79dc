package importer

import "testing"

func TestBlockList(t *testing.T) {
	var l blockList[int]
	for round := range 2 {
		n := 2*blockSize + 5 + round
		for i := range n {
			l.add(i * 3)
		}
		if l.len() != n {
			t.Fatalf("round %d: len = %d, want %d", round, l.len(), n)
		}
		for i := range n {
			if *l.at(i) != i*3 {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, i, *l.at(i), i*3)
			}
		}
		l.reset()
		if l.len() != 0 || len(l.blocks) != 1 {
			t.Fatalf("round %d: after reset len %d, %d blocks", round, l.len(), len(l.blocks))
		}
	}
}

// TestCCIndexLink: a parent is found wherever it lies in the file, a uuid
// written twice is its later line, and a parent not in the file is none.
func TestCCIndexLink(t *testing.T) {
	var x ccIndex
	add := func(id, parent string) {
		x.add(ccNode{id: idHash(id), parent: idHash(parent), off: uint64(x.len()) << 2})
	}
	add("b", "a") // 0: parent later in the file
	add("a", "")  // 1
	add("c", "b") // 2
	add("a", "")  // 3: a again
	add("d", "a") // 4
	add("e", "z") // 5: parent elsewhere
	x.link()
	want := []int{3, -1, 0, -1, 3, -1}
	for i, w := range want {
		p, ok := x.parentOf(i)
		if !ok {
			p = -1
		}
		if p != w {
			t.Errorf("parent of node %d = %d, want %d", i, p, w)
		}
	}
	if got := x.path(2); len(got) != 3 || got[0] != 3 || got[1] != 0 || got[2] != 2 {
		t.Errorf("path to c = %v, want [3 0 2]", got)
	}
}
