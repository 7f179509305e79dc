package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// This file holds the printers several commands share.

type lineWriter struct{ *tabwriter.Writer }

func newLineWriter(w io.Writer) lineWriter {
	return lineWriter{tabwriter.NewWriter(w, 0, 8, 1, ' ', 0)}
}

// printStored writes the records of conv that opt selects as canonical
// JSONL, as stored (get, show --json).
func printStored(ctx context.Context, f *Factory, conv string, opt store.ReadOptions) error {
	s, err := f.ReadStore(ctx)
	if err != nil {
		return err
	}
	enc := transcript.NewEncoder(f.IO.Out)
	err = s.Read(ctx, conv, opt, func(r store.Row) error { return enc.WriteLine(r.Body) })
	return errors.Join(err, enc.Flush())
}

// plural is n and noun, in the plural unless n is 1: "2000 records".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
