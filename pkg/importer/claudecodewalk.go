package importer

// The second pass over a Claude Code session: the entries of a path,
// read back from the file by their places and decoded one at a time.

// ccStep is an entry of a path to walk: where its line is.
type ccStep struct {
	off     int64
	n, line int32
}

// steps is path as the walk reads it: 16 bytes an entry, the index not
// needed any more once every path is made.
func (x *ccIndex) steps(path []int32) []ccStep {
	out := make([]ccStep, len(path))
	for k, i := range path {
		n := x.at(int(i))
		out[k] = ccStep{n.at(), n.n, n.line}
	}
	return out
}

// walk goes over path; the main session's walk also notes the lines off
// the graph (once per import, only those past the cursor). end, when set,
// is where a read may resume after the path's last entry. The entries
// from hold on are held (fold says why): stored, but the cursor stops
// before them.
func (ix *ccIndexer) walk(src *Source, path []ccStep, hold int, main bool, end *Point) func(int, func(*Entry) error) error {
	return func(skip int, fn func(*Entry) error) error {
		if ix.resumed {
			skip = 0 // the path is of the entries past the cursor
		}
		after := int32(0)
		if skip > 0 && skip <= len(path) {
			after = path[skip-1].line
		}
		for _, a := range ix.asides {
			if main && a.line > after {
				src.Note(ix.kinds[a.kind])
			}
		}
		for _, a := range ix.skips {
			if main && a.line > after {
				src.Skip(a.err)
			}
		}
		d := ccDecoder{src: src}
		rd := newCCReader(src)
		for k, n := range path {
			e := &Entry{Line: int(n.line)}
			switch {
			case k >= skip:
				text, err := rd.read(n.off, n.n)
				if err != nil {
					return err
				}
				recs, err := d.entry(text, int(n.line))
				if skippable(err) {
					src.Skip(err) // named, and the walk goes on
					recs, err = nil, nil
				}
				if err != nil {
					return err
				}
				e.ID, e.Records, e.Held = d.uuid, recs, d.held || k >= hold
				if d.ms > 0 {
					e.Time = timeMS(d.ms)
				}
			case k == skip-1:
				e.ID, _ = rd.head(n.off, n.n) // the one the cursor names
			}
			if k == len(path)-1 {
				if end != nil {
					e.Next = *end
				}
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		d.done()
		return nil
	}
}
