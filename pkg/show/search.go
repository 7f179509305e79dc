package show

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Searcher is the store convo search reads.
type Searcher interface {
	Search(ctx context.Context, opt store.SearchOptions, fn func(store.SearchHit) error) error
}

// SearchPrinter writes what convo search finds: a line of JSON per record
// (schemas/search.schema.json), or a head line and the marked snippet for
// people.
type SearchPrinter struct {
	Query  *search.Query
	JSON   bool
	Rank   bool // --sort rank: by score, and JSON lines carry it
	Colour bool
}

// searchHit is one record to print, held past the store's callback.
type searchHit struct {
	conv    string
	role    string
	created int64
	body    []byte
	doc     *search.Doc
	score   float64
}

// Search prints the records opt finds in s, newest first, or the best
// limit of them by rank (p.Rank); over is called when more records match
// than ranking takes.
func (p SearchPrinter) Search(ctx context.Context, s Searcher, opt store.SearchOptions, w io.Writer, limit int, over func()) error {
	var ranked *search.Ranked[searchHit]
	if p.Rank {
		ranked = search.NewRanked(p.Query, func(h searchHit) *search.Doc { return h.doc })
		opt.Limit = search.RankLimit + 1 // one more says there were more
	}
	out := bufio.NewWriter(w)
	err := s.Search(ctx, opt, func(h store.SearchHit) error {
		hit := searchHit{conv: h.Conversation, role: h.Role, created: h.Created, body: h.Body, doc: h.Doc}
		if ranked == nil {
			return p.print(out, hit)
		}
		hit.body = slices.Clone(h.Body)
		ranked.Add(hit)
		return nil
	})
	if err == nil && ranked != nil {
		if ranked.Over() {
			over()
		}
		err = ranked.Each(limit, func(h searchHit, score float64) error {
			h.score = score
			return p.print(out, h)
		})
	}
	if err != nil {
		return errors.Join(err, out.Flush())
	}
	return out.Flush()
}

// searchLine is one line of search --json (schemas/search.schema.json).
type searchLine struct {
	Record json.RawMessage `json:"record"`
	Match  searchMatch     `json:"match"`
}

type searchMatch struct {
	Snippet string   `json:"snippet"`
	Marks   [][2]int `json:"marks"`
	Score   *float64 `json:"score,omitempty"`
}

func (p SearchPrinter) print(w *bufio.Writer, h searchHit) error {
	sn := p.Query.Snippet(h.doc)
	if p.JSON {
		line := searchLine{Record: h.body, Match: searchMatch{Snippet: sn.Text, Marks: sn.Marks}}
		if line.Match.Marks == nil {
			line.Match.Marks = [][2]int{}
		}
		if p.Rank {
			line.Match.Score = &h.score
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		w.Write(b)
		return w.WriteByte('\n')
	}
	var r transcript.Record
	if err := transcript.DecodeStored(h.body, &r); err != nil {
		return fmt.Errorf("record of %q: %w", h.conv, err)
	}
	role := h.role
	if r.Message.Role == transcript.RoleSummary {
		// A summary says what it stands for.
		role = fmt.Sprintf("summary of %d records", len(r.Metadata.SummaryIDs))
	}
	when := time.UnixMilli(h.created).Local().Format("2006-01-02 15:04")
	head := fmt.Sprintf("%s  %s  %s  %s", EscapeID(h.conv), when, role, r.ID)
	if p.Colour {
		head = ANSIDim + head + ANSIReset
	}
	fmt.Fprintf(w, "%s\n    %s\n", head, p.marked(sn))
	return nil
}

// marked is the snippet escaped for a terminal, its matches in bold
// colour when colour is on.
func (p SearchPrinter) marked(sn search.Snippet) string {
	if !p.Colour {
		return Escape(sn.Text)
	}
	var b strings.Builder
	at := 0
	for _, m := range sn.Marks {
		b.WriteString(Escape(sn.Text[at:m[0]]))
		b.WriteString(ANSIYellow + Escape(sn.Text[m[0]:m[1]]) + ANSIReset)
		at = m[1]
	}
	b.WriteString(Escape(sn.Text[at:]))
	return b.String()
}
