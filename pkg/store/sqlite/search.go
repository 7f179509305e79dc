package sqlite

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"modernc.org/sqlite"
)

// Search in SQLite: records_fts (migration 0011), an FTS5 index of the
// terms pkg/search makes, keyed by the records' docid negated (a record's
// rowid is its docid). FTS5 reads a doclist forward lazily, but backward
// only once it has read it whole: negated, the newest record comes first
// in its forward order, and search WORD --limit 20 reads 20 entries of the
// word, not all of them.
// The engine's index table (sqlstore.NewIndexTable) writes its entries
// when it catches up with the records, and deletes them before the
// records, by their text, which convo_index_text makes again from the
// record's body.

// fts is the SQL of records_fts.
type fts struct{}

// searchIndex: the records' rowid is their docid; the in-order range
// starts at 2^62, above every slot (DocSlot's highest is below 2^62).
var searchIndex = sqlstore.NewIndexTable("rowid", 1<<62, fts{})

func (dialect) SearchIndex() sqlstore.SearchIndex { return searchIndex }

func (fts) IndexKey(docid int64) int64 { return -docid }

// IndexDeleteWhere: each entry deleted with the text it was written with,
// which convo_index_text makes again from the body, newest record first
// (the keys ascending): FTS5 writes what it holds to a new segment each
// time a key is not above the last.
func (fts) IndexDeleteWhere(where string) string {
	return `INSERT INTO records_fts (records_fts, rowid, terms)
		SELECT 'delete', -rowid, convo_index_text(conversation, body) FROM records WHERE ` + where + ` ORDER BY rowid DESC`
}

// IndexEntries: FTS5's own view of its index, every (term, document), in a
// temporary table of the connection.
func (fts) IndexEntries() (string, string) {
	return `CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_fts_entries USING fts5vocab(main, records_fts, instance)`,
		`SELECT doc, term FROM temp.records_fts_entries`
}

// IndexSegments: each segment has a row in records_fts_idx per leaf page
// (a few thousand rows for a million records).
func (fts) IndexSegments() string {
	return `SELECT count(DISTINCT segid) FROM records_fts_idx`
}

// IndexMerge: FTS5's optimize writes every segment's entries, less those
// deleted, to one.
func (fts) IndexMerge() string {
	return `INSERT INTO records_fts (records_fts) VALUES ('optimize')`
}

// IndexText: the terms, space-separated (the FTS5 table's tokenizer splits
// only at spaces), then the role and the conversation as terms no word
// makes (a word never starts with #).
func (fts) IndexText(terms []string, role, conv string) string {
	var b strings.Builder
	for _, t := range terms {
		b.WriteString(t)
		b.WriteByte(' ')
	}
	b.WriteString("#r" + role + " #c" + hex.EncodeToString([]byte(conv)))
	return b.String()
}

// IndexInsert: bare placeholders, as the records' INSERT, the keys
// negated in Go: SQLite compares every constant expression of a statement
// with the others it has seen ((-?, ?) 4,096 times took most of an append).
func (fts) IndexInsert() string {
	return "INSERT INTO records_fts (rowid, terms) SELECT CAST(key AS INTEGER), value FROM json_each(?)"
}

// SearchQuery: the index drives (CROSS JOIN keeps it the outer loop), its
// (negated) rowid order giving newest first without a sort; -c and --role are terms
// of the index too. The rowid range costs FTS5 nothing: it is always there.
func (fts) SearchQuery(x search.Index, conv, role string, _, _ bool) (string, any, []any) {
	return `SELECT -f.rowid, r.conversation, r.id, r.pos, r.sub, r.seq, r.role, r.created, r.body
		FROM records_fts f CROSS JOIN records r ON r.rowid = -f.rowid
		WHERE records_fts MATCH ?1 AND f.rowid >= -?2 AND f.rowid <= -?3
		ORDER BY f.rowid LIMIT ?4`, ftsMatch(x, conv, role), nil
}

// SearchProbe: none; FTS5's order is the one search wants whatever the
// number of matches.
func (fts) SearchProbe(search.Index, string, string) (string, any, []any) { return "", nil, nil }
func (fts) Sparse(int64) bool                                             { return false }

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

// registerIndexText registers convo_index_text(conversation, body), the
// index entry of a stored record, which IndexDeleteWhere deletes an entry
// with. The driver gives it to every connection opened after.
var registerIndexText = sync.OnceValue(func() error {
	return sqlite.RegisterDeterministicScalarFunction("convo_index_text", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			conv, ok := args[0].(string)
			if !ok {
				return nil, fmt.Errorf("convo_index_text: conversation is %T, not text", args[0])
			}
			body, err := textArg("convo_index_text", "body", args[1])
			if err != nil {
				return nil, err
			}
			return sqlstore.StoredIndexText(dialect{}, conv, body)
		})
})
