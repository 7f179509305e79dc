package importer

// Reading a file of JSON lines in bounded memory: one line at a time,
// with its number and byte offset, and a last line a writer has not
// finished yet told apart from a broken one.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// maxLine bounds one line: past it the file is not the format's.
const maxLine = 256 << 20

// line is one line of a file: its number (from 1), where its text starts
// and the next line does, and its text without the spaces around it and
// the newline (valid until the next line).
type line struct {
	n        int
	off, end int64
	text     []byte
}

// eachLine calls fn for every line that is not blank. A last line without
// its newline that is no complete JSON value is one a tool is still
// writing: it is left for the next import, noted, not an error.
func eachLine(src *Source, r io.Reader, startLine int, startOff int64, fn func(line) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	n, off := startLine, startOff
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		text := chunk
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(long) > maxLine {
					return inputErr(n+1, "", "a line longer than %d MiB", maxLine>>20)
				}
				chunk, err = br.ReadSlice('\n')
				long = append(long, chunk...)
			}
			text = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(text) == 0 && err != nil {
			return nil
		}
		n++
		complete := len(text) > 0 && text[len(text)-1] == '\n'
		size := int64(len(text))
		t := bytes.TrimSpace(text)
		if len(t) > 0 {
			if !complete && !json.Valid(t) {
				src.Note("unfinished last line (read next time)")
				return nil
			}
			// t is text[lead:...]: a subslice has the capacity left past
			// its start (bytes.TrimLeft to find it makes coverage differ
			// from run to run, which stalls the fuzzers).
			lead := int64(cap(text) - cap(t))
			if ferr := fn(line{n: n, off: off + lead, end: off + size, text: t}); ferr != nil {
				return ferr
			}
		}
		off += size
		src.reached(off)
		if err != nil {
			return nil
		}
	}
}

// seqReader reads spans of a file mostly in order (an index pass's
// entries, read back): forward through one buffer, by ReadAt otherwise.
type seqReader struct {
	src *Source
	br  *bufio.Reader
	pos int64
}

func (r *seqReader) read(dst []byte, off int64) error {
	if r.br == nil || off < r.pos || off-r.pos > 1<<20 {
		r.br = bufio.NewReaderSize(io.NewSectionReader(r.src.R, off, r.src.Size-off), 256<<10)
		r.pos = off
	}
	if _, err := r.br.Discard(int(off - r.pos)); err != nil {
		return err
	}
	_, err := io.ReadFull(r.br, dst)
	r.pos = off + int64(len(dst))
	return err
}

// lineAt is the line (from 1) of src where the value at byte off starts,
// past the commas and white space before it: how an error in a file read
// as one JSON value (not line by line) names its line.
func lineAt(src *Source, off int64) int {
	n := 1
	br := bufio.NewReader(io.NewSectionReader(src.R, 0, src.Size))
	for i := int64(0); ; i++ {
		c, err := br.ReadByte()
		if err != nil || i >= off && !bytes.ContainsRune([]byte(", \t\r\n"), rune(c)) {
			return n
		}
		if c == '\n' {
			n++
		}
	}
}

// sessionErr is a session file read as one JSON value (not line by line)
// that is not the format's, named with the line dec got to.
func sessionErr(src *Source, dec *json.Decoder, format string, err error) error {
	return inputErr(lineAt(src, dec.InputOffset()), "", "not a %s session: %v", format, err)
}

// noteBadUTF8 notes the invalid UTF-8 of text, which decoding replaces by
// U+FFFD: a loss.
func noteBadUTF8(src *Source, text []byte) {
	if !utf8.Valid(text) {
		src.Note("invalid UTF-8 (replaced by U+FFFD)")
	}
}
