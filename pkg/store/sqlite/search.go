package sqlite

import (
	"encoding/hex"
	"strings"

	"github.com/convo-cli/convo/pkg/search"
)

// Search in SQLite: records_fts (migration 0008), an FTS5 index of the
// terms pkg/search makes, keyed by the records' rowid, which is their docid.
// The engine writes its entries beside the records; a trigger deletes
// them with the records.

func (dialect) DocIDColumn() string   { return "rowid" }
func (dialect) DocIDValue() string    { return "?" }
func (dialect) AllocatesDocIDs() bool { return true }
func (dialect) TermsInRow() bool      { return false }
func (dialect) IndexDelete() string   { return "DELETE FROM records_fts WHERE rowid = ?" }

// IndexText: the terms, space-separated (the FTS5 table's tokenizer splits
// only at spaces), then the role and the conversation as terms no word
// makes (a word never starts with #).
func (dialect) IndexText(terms []string, role, conv string) string {
	var b strings.Builder
	for _, t := range terms {
		b.WriteString(t)
		b.WriteByte(' ')
	}
	b.WriteString("#r" + role + " #c" + hex.EncodeToString([]byte(conv)))
	return b.String()
}

// IndexInsert: bare placeholders, as the records' INSERT.
func (dialect) IndexInsert(n int) string {
	return "INSERT INTO records_fts (rowid, terms) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?),", n), ",")
}

// SearchQuery: the index drives (CROSS JOIN keeps it the outer loop), its
// rowid order giving newest first without a sort; -c and --role are terms
// of the index too.
func (dialect) SearchQuery(x search.Index, conv, role string) (string, any, []any) {
	return `SELECT f.rowid, r.conversation, r.id, r.pos, r.sub, r.seq, r.role, r.created, r.body
		FROM records_fts f CROSS JOIN records r ON r.rowid = f.rowid
		WHERE records_fts MATCH ?1 AND f.rowid <= ?2 AND f.rowid >= ?3
		ORDER BY f.rowid DESC LIMIT ?4`, ftsMatch(x, conv, role), nil
}

// ftsMatch writes x as an FTS5 query: each term quoted (a term holds no
// double quote), * after a prefix; the role and conversation as the terms
// IndexText adds (#r ROLE, #c HEX).
func ftsMatch(x search.Index, conv, role string) string {
	var all []string
	for _, any := range x.All {
		var alts []string
		for _, conj := range any {
			var ts []string
			for _, t := range conj {
				ts = append(ts, ftsTerm(t))
			}
			alts = append(alts, "("+strings.Join(ts, " AND ")+")")
		}
		all = append(all, "("+strings.Join(alts, " OR ")+")")
	}
	if role != "" {
		all = append(all, ftsTerm(search.Term{Text: "#r" + strings.ToLower(role)}))
	}
	if conv != "" {
		all = append(all, ftsTerm(search.Term{Text: "#c" + hex.EncodeToString([]byte(conv))}))
	}
	q := strings.Join(all, " AND ")
	if len(x.None) > 0 {
		var ts []string
		for _, t := range x.None {
			ts = append(ts, ftsTerm(t))
		}
		q = "(" + q + ") NOT (" + strings.Join(ts, " OR ") + ")"
	}
	return q
}

func ftsTerm(t search.Term) string {
	s := `"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}
