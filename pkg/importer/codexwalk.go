package importer

// The walk over a Codex rollout: a line an entry, read in one pass, those
// the cursor covers read for the state they leave.

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// walk calls fn for each line past at, an entry each, the k-th first;
// the first skip are read for the state they leave (the model in force,
// the open turn's prompts), not decoded into records.
func (d *codexDecoder) walk(at *At, k, skip int, fn func(*Entry) error) error {
	src := d.src
	quiet := *src
	quiet.notes = nil
	err := eachLineAt(src, at, func(l line) error {
		h := sha256.Sum256(l.text)
		e := &Entry{ID: strconv.Itoa(l.n) + "-" + hex.EncodeToString(h[:6]), Line: l.n}
		var cl codexLine
		if err := cl.scan(l.text); err != nil {
			// A torn line amid the file: named (once: past the
			// cursor), skipped.
			if k >= skip {
				src.Skip(inputErr(l.n, "", "skipped: not a Codex rollout line: %v", err))
			}
			k++
			e.Next = d.point(l)
			return fn(e)
		}
		e.Time = parseTime(cl.Timestamp)
		if k >= skip {
			if !utf8.Valid(l.text) {
				src.Note("invalid UTF-8 (replaced by U+FFFD)")
			}
			recs, err := d.line(&cl, l.text, l.n)
			if skippable(err) {
				src.Skip(err)
				recs, err = nil, nil
			}
			if err != nil {
				return err
			}
			if len(d.execs) > 0 && len(recs) > 0 && recs[0].Message.Role != transcript.RoleTool {
				// The turn goes on without the outputs of these
				// commands: their events are the results.
				recs = append(d.execResults(), recs...)
			}
			e.Records, e.Held, e.TurnAux = recs, len(d.pending) > 0 || len(d.execs) > 0, d.usage
			d.usage = nil
		} else {
			switch cl.Type {
			case "turn_context", "response_item", "event_msg", "compacted":
				// The model in force and the prompts of the open turn
				// (an event_msg copy of one before the cursor is no
				// new prompt); nothing noted, nothing held.
				d.src = &quiet
				_, _ = d.line(&cl, l.text, l.n)
				d.src, d.pending, d.execs, d.usage = src, nil, nil, nil
			}
		}
		k++
		e.Next = d.point(l)
		return fn(e)
	})
	if err == nil {
		d.pending, d.execs = nil, nil // held: read again next time
	}
	d.done()
	return err
}
