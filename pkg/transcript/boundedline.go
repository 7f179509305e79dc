package transcript

import (
	"bufio"
	"errors"
)

// ReadLine reads a line as bufio.Reader.ReadBytes('\n') does, but stops
// once it holds more than max bytes (what it returns is then longer than
// max, the rest of the line unread): a line that never ends (/dev/zero)
// is refused by its caller, not read into memory without bound.
func ReadLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) > max {
			return line, err
		}
	}
}
