package ask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// ViewStore is the part of a store a conversation's LLM view is read from;
// store.Store is one.
type ViewStore interface {
	// LatestSystem returns the body of the latest system record, nil when
	// there is none.
	LatestSystem(ctx context.Context, conv string) ([]byte, error)
	// Read calls fn for each record opt selects, in transcript order; a
	// missing conversation is store.ErrNotFound (wrapped).
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
}

// RenderView writes conversation conv's LLM view to w as the payload req
// describes (render -c): its system prompt (req.System, else the latest
// system record), its latest summary (unless req.NoSummary) and the
// records after it. A missing conversation is store.ErrNotFound (wrapped).
func RenderView(ctx context.Context, s ViewStore, conv string, w io.Writer, req format.Request) error {
	r, _, _, err := openView(ctx, s, conv, w, req)
	if err != nil {
		return err
	}
	return r.Close()
}

// openView starts the payload of conv's stored view: the one place ask
// and render -c derive it (rule 4 of SPEC section 2). The prompt is the
// latest system record unless req.System is set; the store reads from the
// latest summary on, and the Renderer leaves system records out and turns
// the summary into req.Summary, streaming row by row in constant memory.
// It returns the Renderer, open for more records, and the role of the last
// message of the view ("" for none). With store.ErrNotFound the Renderer
// is still usable: a conversation not stored yet has an empty view. end is
// the conversation's last record as read, for a write that must find it
// still last.
func openView(ctx context.Context, s ViewStore, conv string, w io.Writer, req format.Request) (r *format.Renderer, last transcript.Role, end store.Last, err error) {
	if req.System == nil {
		raw, err := s.LatestSystem(ctx, conv)
		if err != nil {
			return nil, "", end, err
		}
		if raw != nil {
			var sys transcript.Record
			if err := transcript.DecodeStored(raw, &sys); err != nil {
				return nil, "", end, fmt.Errorf("stored system record is corrupt: %w", err)
			}
			req.System = sys.Message.Contents
		}
	}
	r, err = format.NewRenderer(w, req)
	if err != nil {
		return nil, "", end, err
	}
	var view transcript.ViewFilter
	var endBody []byte // the last row's, copied into one reused buffer
	rows := viewRows(ctx, s, conv, req)
	err = r.AddRows(func(yield func(transcript.Role, []byte) error) error {
		return rows(func(row store.Row) error {
			role := transcript.Role(row.Role)
			if view.Add(role).Sent() {
				last = role
			}
			endBody, end.Seq = append(endBody[:0], row.Body...), row.Seq
			return yield(role, row.Body)
		})
	})
	if err == nil && endBody != nil {
		var rec transcript.Record
		if derr := transcript.DecodeStored(endBody, &rec); derr != nil {
			return r, last, end, fmt.Errorf("stored record is corrupt: %w", derr)
		}
		end.ID = rec.ID
	}
	return r, last, end, err
}

// viewRows returns the reader of conv's view rows: from the latest summary
// on, unless that summary is another provider's compaction with nothing to
// read (transcript.Record.Unreadable): then the view starts at the latest
// summary that is not one (or the first record), such compactions left
// out, so that the records they cover are sent in their place, and
// req.Warn says so. Only that case reads the conversation twice more; the
// first row tells, before anything is passed on.
func viewRows(ctx context.Context, s ViewStore, conv string, req format.Request) func(func(store.Row) error) error {
	return func(fn func(store.Row) error) error {
		first := true
		err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
			if first {
				first = false
				if unreadable(row, req) {
					return errUnreadable
				}
			}
			return fn(row)
		})
		if errors.Is(err, errUnreadable) {
			return coveredRows(ctx, s, conv, req, fn)
		}
		return err
	}
}

// errUnreadable ends the read of a view that starts at a compaction its
// provider is not rendered for, with nothing to read.
var errUnreadable = errors.New("unreadable compaction")

// unreadable reports whether row is a compaction req's provider cannot
// be sent (and req wants the summary).
func unreadable(row store.Row, req format.Request) bool {
	if req.NoSummary || transcript.Role(row.Role) != transcript.RoleSummary || !bytes.Contains(row.Body, []byte(`"provider_data"`)) {
		return false
	}
	var rec transcript.Record
	return transcript.DecodeStored(row.Body, &rec) == nil && rec.Unreadable(req.Provider)
}

// coveredRows passes on conv's rows from the latest summary req's provider
// can be sent, leaving out the compactions it cannot (their covered
// records stand in their place).
func coveredRows(ctx context.Context, s ViewStore, conv string, req format.Request, fn func(store.Row) error) error {
	// The first pass: where the view starts, and what it leaves out.
	start, i := -1, 0
	skip := map[int]bool{}
	var warn []transcript.Record
	err := s.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
		defer func() { i++ }()
		if transcript.Role(row.Role) != transcript.RoleSummary {
			return nil
		}
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return fmt.Errorf("stored record is corrupt: %w", err)
		}
		if rec.Unreadable(req.Provider) {
			skip[i] = true
			warn = append(warn, rec)
		} else {
			start, warn = i, warn[:0] // those before it are out of the view
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range warn {
		format.WarnUnreadable(req, &warn[i])
	}
	j := 0
	return s.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
		defer func() { j++ }()
		if j < start || skip[j] {
			return nil
		}
		return fn(row)
	})
}
