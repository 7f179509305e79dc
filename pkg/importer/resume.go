package importer

// Reading a grown file from where the last import stopped: a cursor's
// Resume names the byte offset past the last entry it covers, with a hash
// of the bytes before it (a file rewritten there is read from its start,
// where a moved branch or a rewrite shows), and what the format needs to
// go on from there.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"

	"github.com/convo-cli/convo/pkg/store"
)

// resume is a cursor's Resume, decoded.
type resume struct {
	Offset int64  `json:"offset"`
	Line   int    `json:"line"` // the number of the line before Offset
	Tail   string `json:"tail"` // tailHash at Offset
	// What a format needs to go on: Claude Code the session's id and
	// whether it is a sub-agent's, Codex the model in force.
	Session string `json:"session,omitempty"`
	Sub     bool   `json:"sub,omitempty"`
	Model   string `json:"model,omitempty"`
	// Codex: the user's texts of the open turn (an event_msg copy of one
	// of them past the offset is no new prompt).
	Prompts []codexPrompt `json:"prompts,omitempty"`
	// Codex: the call ids of the latest outputs (an exec_command_end of
	// one of them past the offset is a copy).
	Answered []string `json:"answered,omitempty"`
	// last is the cursor's last entry (not stored: the cursor has it).
	last string
}

// errRestart: a read from the cursor's offset cannot tell what a read from
// the file's start would (a rewind behind the offset, a branch off what
// was imported): read it from its start.
var errRestart = errors.New("read again from the start")

// tailHash hashes the headBytes bytes before off.
func tailHash(src *Source, off int64) string {
	from := max(off-headBytes, 0)
	h := sha256.New()
	_, _ = io.Copy(h, io.NewSectionReader(src.R, from, off-from))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// resumeFrom is where a read of src may start, from its cursors: all of
// them resumable at the same offset (one conversation, as a file without
// branches or sidechains makes), the file no shorter, and the bytes
// before the offset the same; nil is from the start.
func resumeFrom(src *Source, curs []store.ImportCursor) *resume {
	if len(curs) != 1 || src.Branches || curs[0].Resume == "" {
		return nil
	}
	var r resume
	if json.Unmarshal([]byte(curs[0].Resume), &r) != nil || r.Offset <= 0 || r.Offset > src.Size ||
		r.Tail != tailHash(src, r.Offset) {
		return nil
	}
	r.last = curs[0].LastEntry
	return &r
}

// encode is r as a cursor keeps it, its tail hashed from src; "" when r
// is none (Offset 0).
func (r resume) encode(src *Source) string {
	if r.Offset <= 0 {
		return ""
	}
	r.Tail = tailHash(src, r.Offset)
	b, _ := json.Marshal(r)
	return string(b)
}

// startAt is where a read of src starts: its offset and the number of the
// line before it.
func (src *Source) startAt() (int64, int) {
	if src.from == nil {
		return 0, 0
	}
	return src.from.Offset, src.from.Line
}

// rest reads src from startAt on.
func (src *Source) rest() io.Reader {
	off, _ := src.startAt()
	return io.NewSectionReader(src.R, off, src.Size-off)
}
