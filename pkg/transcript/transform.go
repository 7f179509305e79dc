package transcript

import (
	"errors"
	"io"
)

// ApplyRules reads every record of dec through app, so the rules of SPEC
// section 2 hold for what a command reads on stdin, skipping a record whose
// id was read before (a retried line), and calls fn with each change. The
// changes point into app's state: copy a record to keep it.
func ApplyRules(dec *Decoder, app *Appender, fn func(Change) error) error {
	seen := map[string]bool{}
	for {
		r, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if r.ID != "" {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
		}
		changes, err := app.TryAppend(r)
		if err != nil {
			return atLine(err, dec.Line())
		}
		for _, ch := range changes {
			if err := fn(ch); err != nil {
				return err
			}
		}
	}
}

// atLine names line in err, an *InputError about the record read there
// that the decoder could not judge alone (a merge past the size limit).
func atLine(err error, line int) error {
	var ie *InputError
	if errors.As(err, &ie) && ie.Line == 0 {
		ie.Line = line
	}
	return err
}

// Rewriter applies the rules to a transcript streamed through it and writes
// the result, holding back only what a later record may still change: the
// open record and the system records after it.
type Rewriter struct {
	app  *Appender
	enc  *Encoder
	held []*Record
	seen map[string]bool
}

// NewRewriter returns a Rewriter writing to enc. An empty conversation is
// taken from the first record.
func NewRewriter(enc *Encoder, conversation string, ids *IDs, now func() int64) *Rewriter {
	return &Rewriter{app: NewAppender(conversation, nil, ids, now), enc: enc, seen: map[string]bool{}}
}

// Add appends one record. A record whose id was already seen is skipped;
// one over the size limit, or whose merge would make one, is an
// *InputError.
func (w *Rewriter) Add(r Record) error {
	if r.ID != "" {
		if w.seen[r.ID] {
			return nil
		}
		w.seen[r.ID] = true
	}
	changes, err := w.app.TryAppend(r)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		if ch.Kind == Merged {
			continue // the record is held already
		}
		if ch.Record.Message.Role == RoleSystem && len(w.held) > 0 {
			w.held = append(w.held, ch.Record)
			continue
		}
		if err := w.flush(); err != nil {
			return err
		}
		if ch.Record.Message.Role == RoleSystem || ch.Record.Message.Role == RoleSummary {
			if err := w.enc.Encode(ch.Record); err != nil {
				return err
			}
			continue
		}
		w.held = append(w.held, ch.Record)
	}
	return nil
}

func (w *Rewriter) flush() error {
	for _, r := range w.held {
		if err := w.enc.Encode(r); err != nil {
			return err
		}
	}
	w.held = w.held[:0]
	return nil
}

// Copy adds every record dec yields, after edit (when not nil) has had its say.
func (w *Rewriter) Copy(dec *Decoder, edit func(*Record)) error {
	for {
		r, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if edit != nil {
			edit(&r)
		}
		if err := w.Add(r); err != nil {
			return atLine(err, dec.Line())
		}
	}
}

// Close writes what is held and flushes the encoder.
func (w *Rewriter) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.enc.Flush()
}

// AppendStream is append without a store: the transcript read from in (nil:
// none), then add when it is not nil, written to out with the rules
// applied. Without add, an (when not nil) annotates each record read; with
// it, an is the caller's to apply to add. in reads with the checks of an
// append (Decoder.CheckAppend), of one conversation.
func AppendStream(in *Decoder, out io.Writer, add *Record, an *Annotation, ids *IDs, now func() int64) error {
	enc := NewEncoder(out)
	rw := NewRewriter(enc, "", ids, now)
	if in != nil {
		in.CheckAppend(nil, true)
		in.sameConversation = true
		var edit func(*Record)
		if add == nil && an != nil && !an.Empty() {
			// ParseAnnotation checked the keys: Apply cannot fail.
			edit = func(r *Record) { _ = an.Apply(r) }
		}
		if err := rw.Copy(in, edit); err != nil {
			return err
		}
	}
	if add != nil {
		if err := rw.Add(*add); err != nil {
			return err
		}
	}
	return rw.Close()
}
