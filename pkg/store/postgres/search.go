package postgres

import (
	"strconv"
	"strings"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// Search in PostgreSQL: records.terms (migration 0005), a tsvector of the
// terms pkg/search makes, written as literal lexemes so that no parser of
// PostgreSQL's splits or changes them, under a GIN index: the terms in
// the row (sqlstore.NewTermsInRow).

// tsvector is the SQL of records.terms.
type tsvector struct{}

// searchIndex: the docid adds a sequence to the slot bound, so that
// writers on many machines need not wait for each other to number their
// records. No in-order range: a GIN index holds no differences of docids.
var searchIndex = sqlstore.NewTermsInRow("docid", "(? + nextval('records_docid') % 1048576)", tsvector{})

func (*dialect) SearchIndex() sqlstore.SearchIndex { return searchIndex }

// IndexText writes the terms as a tsvector's text, each lexeme quoted;
// role and conversation are columns of the row.
func (tsvector) IndexText(terms []string, _, _ string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(lexeme(t))
	}
	return b.String()
}

func lexeme(t string) string {
	return "'" + lexemeEscape.Replace(t) + "'"
}

// lexemeEscape is made once: a Replacer built per lexeme took most of a
// bulk append's CPU (300,000 lines: 25 s of the client's CPU, 2 s without
// the terms).
var lexemeEscape = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// sparseMatches: a search with at most this many matches reads them all
// through the GIN index and sorts them; one with more walks the docid index
// backward, newest first, until it has read enough of them. Left to its
// statistics, the planner walked the docid index for an order number that
// one record in a million holds.
const sparseMatches = 20000

// SearchProbe counts the matches, up to sparseMatches + 1.
func (tsvector) SearchProbe(x search.Index, conv, role string) (string, any, []any) {
	where, more := filters(conv, role, 2)
	return `SELECT count(*) FROM (SELECT 1 FROM records WHERE terms @@ ?1::tsquery` + where +
		` LIMIT ` + strconv.Itoa(sparseMatches+1) + `) m`, tsquery(x), more
}

// Sparse says whether n probed matches are few enough to sort.
func (tsvector) Sparse(n int64) bool { return n <= sparseMatches }

// SearchQuery: without bounds, the docid range is left to a condition the
// planner folds away (every parameter must be used): a range over every
// docid made it intersect the GIN matches with the whole docid index.
// Sparse, the order is docid + 0, which no index gives: the planner reads
// the matches through GIN and sorts them.
func (tsvector) SearchQuery(x search.Index, conv, role string, bounded, sparse bool) (string, any, []any) {
	q := `SELECT docid, conversation, id, pos, sub, seq, role, created, body FROM records
		WHERE terms @@ ?1::tsquery AND docid <= ?2 AND docid >= ?3`
	if !bounded {
		q = `SELECT docid, conversation, id, pos, sub, seq, role, created, body FROM records
		WHERE terms @@ ?1::tsquery AND ?2::bigint >= ?3::bigint`
	}
	where, more := filters(conv, role, 5)
	order := ` ORDER BY docid DESC LIMIT ?4`
	if sparse {
		order = ` ORDER BY docid + 0 DESC LIMIT ?4`
	}
	return q + where + order, tsquery(x), more
}

// filters are the conditions on conversation and role, their parameters
// numbered from n.
func filters(conv, role string, n int) (string, []any) {
	var where string
	var more []any
	if conv != "" {
		more = append(more, conv)
		where += ` AND conversation = ?` + strconv.Itoa(n)
		n++
	}
	if role != "" {
		more = append(more, role)
		where += ` AND role = ?` + strconv.Itoa(n)
	}
	return where, more
}

// tsquery writes x as a tsquery's text.
func tsquery(x search.Index) string {
	term := func(t search.Term) string {
		if t.Prefix {
			return lexeme(t.Text) + ":*"
		}
		return lexeme(t.Text)
	}
	var all []string
	for _, any := range x.All {
		var alts []string
		for _, conj := range any {
			var ts []string
			for _, t := range conj {
				ts = append(ts, term(t))
			}
			alts = append(alts, "("+strings.Join(ts, " & ")+")")
		}
		all = append(all, "("+strings.Join(alts, " | ")+")")
	}
	for _, t := range x.None {
		all = append(all, "!"+term(t))
	}
	return strings.Join(all, " & ")
}
