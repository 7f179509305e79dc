package transcript

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

// Add appends one record. A record whose id was already seen is skipped.
func (w *Rewriter) Add(r Record) error {
	if r.ID != "" {
		if w.seen[r.ID] {
			return nil
		}
		w.seen[r.ID] = true
	}
	for _, ch := range w.app.Append(r) {
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

// Close writes what is held and flushes the encoder.
func (w *Rewriter) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.enc.Flush()
}
