package export

import "context"

// ItemSink takes records as DynamoDB JSON items and sends them on, as
// pkg/dynamo's Writer does for a DynamoDB table.
type ItemSink interface {
	// Put queues one item ({"id":{"S":"..."},...}); it keeps no reference to it.
	Put(ctx context.Context, item []byte) error
	// Flush sends what is queued; the items are delivered only when it
	// returns nil.
	Flush(ctx context.Context) error
}

// NewItemWriter returns a Writer that turns each record into a DynamoDB
// item (AppendItem) and puts it into sink; its Close flushes sink, so the
// output is delivered when Close returns nil. ctx bounds every call to sink.
func NewItemWriter(ctx context.Context, sink ItemSink) Writer {
	return &itemWriter{ctx: ctx, sink: sink}
}

type itemWriter struct {
	ctx  context.Context
	sink ItemSink
	buf  []byte
}

func (w *itemWriter) Write(body []byte) error {
	item, err := AppendItem(w.buf[:0], body)
	if err != nil {
		return err
	}
	w.buf = item
	return w.sink.Put(w.ctx, item)
}

func (w *itemWriter) Close() error { return w.sink.Flush(w.ctx) }
