package format

import (
	"errors"
	"io"
	"strings"
	"sync/atomic"

	"github.com/convo-cli/convo/pkg/transcript"
)

// This file renders a view as it is read: the rows of a stored one
// (AddRows: render -c, ask) or a whole transcript on a stream
// (RenderTranscript: render without -c). The store is the caller's: format
// sees only roles and canonical JSON bodies.

// Rows reads the records of a view in transcript order, calling yield with
// each one's role and canonical JSON body; a body is valid only during its
// yield. An error from yield must end the read and be returned.
type Rows func(yield func(role transcript.Role, body []byte) error) error

// AddJSON feeds the next record as its JSON text, e.g. a stored body,
// decoded by transcript.DecodeStored: rendering a long stored conversation
// is mostly decoding, and that decoder skips encoding/json's reflection.
func (r *Renderer) AddJSON(body []byte) error {
	if err := transcript.DecodeStored(body, &r.rec); err != nil {
		return err
	}
	return r.Add(&r.rec)
}

// AddRows feeds the records rows reads, as AddJSON does, on a second
// goroutine: the store reads the next rows while the last ones are decoded
// and rendered, so rendering a long conversation costs about what reading
// it does, in constant memory. System records are not even copied, nor
// summary records with Request.NoSummary.
func (r *Renderer) AddRows(rows Rows) error {
	var view transcript.ViewFilter
	return pipeline(rows, func(role transcript.Role) bool {
		switch view.Add(role) {
		case transcript.ViewSystem:
			return false
		case transcript.ViewSummary:
			return !r.req.NoSummary
		}
		return true
	}, r.AddJSON)
}

// pipeline calls add with the body of each row read that keep accepts, in
// order, on a second goroutine. Bodies travel in batches copied out of the
// rows (a row's body is valid only during its callback); three batches
// circulate, so memory stays bounded. The first error stops both sides.
func pipeline(read Rows, keep func(transcript.Role) bool, add func([]byte) error) error {
	type batch struct {
		buf  []byte
		ends []int
	}
	const batchBytes = 256 << 10
	full, free := make(chan *batch, 2), make(chan *batch, 3)
	for range 3 {
		free <- &batch{}
	}
	var failed atomic.Bool
	done := make(chan error, 1)
	go func() {
		var err error
		for b := range full {
			start := 0
			for _, end := range b.ends {
				if err != nil {
					break
				}
				if err = add(b.buf[start:end]); err != nil {
					failed.Store(true)
				}
				start = end
			}
			b.buf, b.ends = b.buf[:0], b.ends[:0]
			free <- b
		}
		done <- err
	}()
	errStop := errors.New("stop")
	cur := <-free
	rerr := read(func(role transcript.Role, body []byte) error {
		if failed.Load() {
			return errStop
		}
		if !keep(role) {
			return nil
		}
		cur.buf = append(cur.buf, body...)
		cur.ends = append(cur.ends, len(cur.buf))
		if len(cur.buf) >= batchBytes {
			full <- cur
			cur = <-free
		}
		return nil
	})
	if len(cur.ends) > 0 && rerr == nil {
		full <- cur
	}
	close(full)
	if err := <-done; err != nil {
		return err
	}
	return rerr
}

// RenderTranscript reads a whole transcript from in (JSONL in the forms
// transcript.Decoder takes), applies the rules of SPEC section 2 to it as
// append does (ids and the clock for the placeholders it inserts), and
// writes the payload of its view as req says: the latest system record is
// the prompt unless req.System is set, the latest summary sets Summary, and
// the records after it are the messages. A record that cannot be rendered
// is an *transcript.InputError naming its input line.
func RenderTranscript(w io.Writer, req Request, in io.Reader, ids *transcript.IDs, now func() int64) error {
	dec := transcript.NewDecoder(in)
	app := transcript.NewAppender("", nil, ids, now)
	line := map[string]int{} // where each record of the view starts, for errors
	var system, summary *transcript.Record
	var view []*transcript.Record // records after the latest summary
	var parts transcript.ViewFilter
	var unread []*transcript.Record // compactions standing out of the view
	err := transcript.ApplyRules(dec, app, func(ch transcript.Change) error {
		if ch.Kind == transcript.Merged {
			return nil // merged in place into a record the view holds
		}
		line[ch.Record.ID] = dec.Line()
		if !req.NoSummary && ch.Record.Unreadable(req.Provider) {
			// Another provider's compaction with nothing to read: the
			// records it covers stay in the view, in its place.
			unread = append(unread, ch.Record)
			return nil
		}
		switch parts.Add(ch.Record.Message.Role) {
		case transcript.ViewSystem:
			system = ch.Record
		case transcript.ViewSummary:
			summary, view = ch.Record, view[:0]
		default:
			view = append(view, ch.Record)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if req.System == nil && system != nil {
		req.System = system.Message.Contents
	}
	if summary != nil && !req.NoSummary && !summary.IsCompaction() {
		req.Summary = strings.Join(summary.Message.Contents, "\n\n")
	}
	for _, u := range unread {
		WarnUnreadable(req, u)
	}
	r, err := NewRenderer(w, req)
	if err != nil {
		return err
	}
	if summary != nil && !req.NoSummary && summary.IsCompaction() {
		view = append([]*transcript.Record{summary}, view...)
	}
	for _, rec := range view {
		if err = r.Add(rec); err != nil {
			break
		}
	}
	if err == nil {
		err = r.Close()
	}
	var ie *transcript.InputError
	var re *RecordError
	if errors.As(err, &ie) && errors.As(err, &re) {
		ie.Line = line[re.ID]
	}
	return err
}

// WarnUnreadable says, through req.Warn, that rec, another provider's
// compaction with no readable summary, is rendered as the records it
// covers.
func WarnUnreadable(req Request, rec *transcript.Record) {
	switch {
	case req.Warn == nil:
	case rec.Failed():
		req.Warn("record %s: the %s compaction failed (its content is null, a no-op): %s is sent the %d records it covers instead",
			rec.ID, rec.CompactionProvider(), req.Provider, len(rec.Metadata.SummaryIDs))
	default:
		req.Warn("record %s: the %s compaction has no readable summary: %s is sent the %d records it covers instead",
			rec.ID, rec.CompactionProvider(), req.Provider, len(rec.Metadata.SummaryIDs))
	}
}
