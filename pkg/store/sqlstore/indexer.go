package sqlstore

// The indexer of a catch-up (searchcursor.go): it makes the entries of a
// page of records on another goroutine while the next page is read.

import (
	"context"
	"fmt"
)

// indexer makes and writes the entries of the pages of records it reads
// in one transaction: a page's entries are made on another goroutine
// (making) while the next is read; they are written maxHeldEntries at a
// time.
type indexer struct {
	ctx    context.Context
	tx     conn
	t      *indexTable
	es     []entry
	held   int
	making *madePage
}

// madePage is a page of records whose entries a goroutine makes.
type madePage struct {
	docids []int64
	convs  []string
	bodies [][]byte
	es     []entry
	held   int
	err    error
	done   chan struct{}
}

// page reads a page of q's rows (docid, conversation, body; after and
// limit bound to its placeholders), hands it to the goroutine, and
// returns how many and the last docid.
func (ix *indexer) page(q string, after int64, limit int) (int, int64, error) {
	rows, err := ix.tx.QueryContext(ix.ctx, q, after, limit)
	if err != nil {
		return 0, 0, err
	}
	p := &madePage{done: make(chan struct{})}
	last := after
	for rows.Next() {
		var conv string
		var body []byte
		if err := rows.Scan(&last, &conv, &body); err != nil {
			rows.Close()
			return 0, 0, err
		}
		p.docids = append(p.docids, last)
		p.convs = append(p.convs, conv)
		p.bodies = append(p.bodies, body)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	if len(p.docids) == 0 {
		return 0, last, nil
	}
	// The page before is collected (and written) while this one is made.
	prev := ix.making
	ix.making = p
	go ix.make(p)
	if err := ix.collectPage(prev); err != nil {
		return 0, 0, err
	}
	return len(p.docids), last, nil
}

// make makes p's entries. Two pages
// may be made at once: each has its own termer.
func (ix *indexer) make(p *madePage) {
	defer close(p.done)
	var t termer
	p.es = make([]entry, 0, len(p.docids))
	for i, docid := range p.docids {
		text, err := t.stored(ix.tx.d, p.convs[i], p.bodies[i])
		if err != nil {
			p.err = fmt.Errorf("record at %d: %w", docid, err)
			return
		}
		p.es = append(p.es, entry{docid: docid, text: text})
		p.held += len(text)
	}
}

// collect waits for the page being made and holds its entries.
func (ix *indexer) collect() error {
	p := ix.making
	ix.making = nil
	return ix.collectPage(p)
}

// collectPage waits for p (nil: none) and holds its entries, writing what
// it holds once that is over maxHeldEntries.
func (ix *indexer) collectPage(p *madePage) error {
	if p == nil {
		return nil
	}
	<-p.done
	if p.err != nil {
		return p.err
	}
	ix.es = append(ix.es, p.es...)
	ix.held += p.held
	if ix.held > maxHeldEntries {
		return ix.write()
	}
	return nil
}

func (ix *indexer) write() error {
	if err := ix.t.add(ix.ctx, ix.tx, ix.es); err != nil {
		return err
	}
	ix.es, ix.held = ix.es[:0], 0
	return nil
}

// flush writes every entry, the page being made included.
func (ix *indexer) flush() error {
	if err := ix.collect(); err != nil {
		return err
	}
	return ix.write()
}

// wait lets the goroutine end (on an error, before the transaction does).
func (ix *indexer) wait() {
	if ix.making != nil {
		<-ix.making.done
	}
}
