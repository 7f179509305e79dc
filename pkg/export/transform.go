package export

import (
	"bytes"
	"io"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Transform writes the transcript read from in to out, with the rules of
// SPEC section 2 applied (ids and timings filled, consecutive records of one
// role merged), and closes out. It touches no store. ids and now stamp the
// records that lack an id or a creation time.
func Transform(in io.Reader, out Writer, ids *transcript.IDs, now func() int64) error {
	rw := transcript.NewRewriter(transcript.NewEncoder(&lineSplitter{out: out}), "", ids, now)
	if err := rw.Copy(transcript.NewDecoder(in), nil); err != nil {
		return err
	}
	if err := rw.Close(); err != nil {
		return err
	}
	return out.Close()
}

// lineSplitter hands each line written to it to a format Writer, so the
// rewriter, which writes JSONL, can feed any format.
type lineSplitter struct {
	out  Writer
	part []byte
}

func (l *lineSplitter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.part = append(l.part, p...)
			return n, nil
		}
		line := p[:i]
		if len(l.part) > 0 {
			l.part = append(l.part, line...)
			line = l.part
		}
		if err := l.out.Write(line); err != nil {
			return 0, err
		}
		l.part, p = l.part[:0], p[i+1:]
	}
}
