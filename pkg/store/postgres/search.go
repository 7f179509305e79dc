package postgres

import (
	"strings"

	"github.com/convo-cli/convo/pkg/search"
)

// Search in PostgreSQL: records.terms (migration 0005), a tsvector of the
// terms pkg/search makes, written as literal lexemes so that no parser of
// PostgreSQL's splits or changes them, under a GIN index.

func (*dialect) DocIDColumn() string { return "docid" }

// DocIDValue adds a sequence to the slot bound: writers on many machines
// need not wait for each other to number their records.
func (*dialect) DocIDValue() string    { return "(? + nextval('records_docid') % 1048576)" }
func (*dialect) AllocatesDocIDs() bool { return false }

func (*dialect) TermsInRow() bool           { return true }
func (*dialect) IndexInsert(int) string     { return "" }
func (*dialect) IndexDelete() string        { return "" }
func (*dialect) IndexKey(docid int64) int64 { return docid }

// IndexText writes the terms as a tsvector's text, each lexeme quoted;
// role and conversation are columns of the row.
func (*dialect) IndexText(terms []string, _, _ string) string {
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
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(t) + "'"
}

func (*dialect) SearchQuery(x search.Index, conv, role string) (string, any, []any) {
	q := `SELECT docid, conversation, id, pos, sub, seq, role, created, body FROM records
		WHERE terms @@ ?1::tsquery AND docid <= ?2 AND docid >= ?3`
	var more []any
	if conv != "" {
		more = append(more, conv)
		q += ` AND conversation = ?5`
	}
	if role != "" {
		more = append(more, role)
		q += ` AND role = ?` + map[bool]string{true: "6", false: "5"}[conv != ""]
	}
	return q + ` ORDER BY docid DESC LIMIT ?4`, tsquery(x), more
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
