package importer

// Reading a grown file from where the last import stopped. A format that
// can (a Resumer) says, with each entry, where a read may go on past it: a
// Point, holding its own state, which the importer stores without reading
// it. The cursor keeps the point with a hash of the bytes before its
// offset (a file rewritten there is read from its start, where a moved
// branch or a rewrite shows); the next import hands it back to Resume.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"

	"github.com/convo-cli/convo/pkg/store"
)

// Resumer is a growing Format that can read a file from where the last
// import of it stopped, rather than from its start.
type Resumer interface {
	Format
	// Resume reads src from at on and emits the session at's cursor is
	// of, whose Walk goes over the entries past at alone (its skip, the
	// entries imported before, are not walked again). It returns
	// errRestart, before it emits, when what was written since cannot be
	// told apart from a read of the whole file (a rewind behind at, a
	// branch off what was imported): the importer calls Decode instead.
	Resume(src *Source, at At, emit func(*Session) error) error
}

// Point is where a read may go on past an entry (Entry.Next).
type Point struct {
	Offset int64 // the byte past the entry's line; 0: no point
	Line   int   // the number of that line
	// State is what the format needs to go on from there (Codex: the
	// model in force), its own: stored with encoding/json, handed back
	// as At.State. Nil when it needs nothing.
	State any
}

// At is where the last import of a file stopped, as its cursor says.
type At struct {
	Offset int64
	Line   int
	Last   string          // the id of the last entry imported
	State  json.RawMessage // Point.State as stored; nil when none
}

// point is at as the Point it was: a read that gets no further leaves the
// cursor there.
func (at *At) point() Point {
	p := Point{Offset: at.Offset, Line: at.Line}
	if len(at.State) > 0 {
		p.State = at.State
	}
	return p
}

// errRestart: a read from the cursor's offset cannot tell what a read from
// the file's start would (a rewind behind the offset, a branch off what
// was imported): read it from its start.
var errRestart = errors.New("read again from the start")

// storedPoint is a cursor's Resume: a Point and the hash of the bytes
// before its offset.
type storedPoint struct {
	Offset int64  `json:"offset"`
	Line   int    `json:"line"`
	Tail   string `json:"tail"` // tailHash at Offset
	State  any    `json:"state,omitempty"`
}

// tailHash hashes the headBytes bytes before off.
func tailHash(src *Source, off int64) string {
	from := max(off-headBytes, 0)
	h := sha256.New()
	_, _ = io.Copy(h, io.NewSectionReader(src.R, from, off-from))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// resumeAt is where a read of src may start, from its cursors: all of
// them resumable at the same offset (one conversation, as a file without
// branches or sidechains makes), the file no shorter, and the bytes
// before the offset the same; nil is from the start.
func resumeAt(src *Source, curs []store.ImportCursor) *At {
	if len(curs) != 1 || src.Branches || curs[0].Resume == "" {
		return nil
	}
	at, tail, ok := decodePoint(curs[0].Resume)
	if !ok || at.Offset <= 0 || at.Offset > src.Size || tail != tailHash(src, at.Offset) {
		return nil
	}
	at.Last = curs[0].LastEntry
	return at
}

// decodePoint reads a cursor's Resume. Cursors stored before formats kept
// their state apart held its fields beside offset, line and tail (Claude
// Code's session and sub, Codex's model, prompts and answered): those
// fields are the state, under the same names.
func decodePoint(s string) (at *At, tail string, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &fields) != nil {
		return nil, "", false
	}
	at = &At{}
	for k, dst := range map[string]any{"offset": &at.Offset, "line": &at.Line, "tail": &tail} {
		if v, has := fields[k]; has && json.Unmarshal(v, dst) != nil {
			return nil, "", false
		}
		delete(fields, k)
	}
	if st, has := fields["state"]; has {
		at.State = st
	} else if len(fields) > 0 {
		at.State, _ = json.Marshal(fields) // the old form
	}
	return at, tail, true
}

// encode is p as a cursor keeps it, its tail hashed from src; "" when p
// is none (Offset 0).
func (p Point) encode(src *Source) string {
	if p.Offset <= 0 {
		return ""
	}
	b, _ := json.Marshal(storedPoint{Offset: p.Offset, Line: p.Line, Tail: tailHash(src, p.Offset), State: p.State})
	return string(b)
}

// eachLineAt calls fn for every line of src past at (from its start
// when at is nil), as eachLine does.
func eachLineAt(src *Source, at *At, fn func(line) error) error {
	if at == nil {
		return eachLine(src, src.Reader(), 0, 0, fn)
	}
	return eachLine(src, io.NewSectionReader(src.R, at.Offset, src.Size-at.Offset), at.Line, at.Offset, fn)
}
