package importer

// blockSize is how many items a block holds: a list grows by blocks, not
// by doubling one slice (which holds the old and the new for a while, and
// leaves up to half of the new unused): a list of a million items is what
// its items take, and little more.
const blockSize = 8192

// blockList is a list that grows by blocks.
type blockList[T any] struct {
	blocks [][]T
	n      int
}

func (l *blockList[T]) add(v T) {
	if l.n%blockSize == 0 {
		if k := l.n / blockSize; k < len(l.blocks) {
			l.blocks[k] = l.blocks[k][:0] // kept from before a reset
		} else {
			l.blocks = append(l.blocks, make([]T, 0, blockSize))
		}
	}
	b := &l.blocks[l.n/blockSize]
	*b = append(*b, v)
	l.n++
}

func (l *blockList[T]) at(i int) *T { return &l.blocks[i/blockSize][i%blockSize] }

func (l *blockList[T]) len() int { return l.n }

// reset empties the list, keeping its first block.
func (l *blockList[T]) reset() {
	if len(l.blocks) > 1 {
		clear(l.blocks[1:])
		l.blocks = l.blocks[:1]
	}
	l.n = 0
}
