package ask

import (
	"context"
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
	err = r.AddRows(func(yield func(transcript.Role, []byte) error) error {
		return s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
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
