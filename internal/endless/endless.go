// Package endless gives tests a line that never ends (/dev/zero, a
// producer stuck in a loop): 'x' bytes, counted as they are read, up to
// Max, so that a reader that would take the line whole fails its test
// instead of hanging it.
package endless

import "io"

// Line is the endless line; N is how many bytes were read of it.
type Line struct{ N, Max int }

func (e *Line) Read(p []byte) (int, error) {
	if e.N >= e.Max {
		return 0, io.EOF
	}
	p = p[:min(len(p), e.Max-e.N)]
	for i := range p {
		p[i] = 'x'
	}
	e.N += len(p)
	return len(p), nil
}
