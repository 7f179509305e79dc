package sqlstore

import (
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// The index's JSONB object is what SQLite's json_each reads back: every
// key and text as it was, whatever its length (each header size) or bytes.
func TestEntriesJSONB(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	texts := []string{"", "a", "elevenchars", "twelve chars", "plain terms #ruser #c6162", `c:\temp\it`, `say "and"`,
		"tab\there\nnewline\x1f", "déjà 東京", "invalid \xff\xfe utf-8", strings.Repeat("x", 255), strings.Repeat("y", 256),
		strings.Repeat("z", 65535), strings.Repeat("w", 65536), strings.Repeat("v", 70000)}
	ix := &indexTable{IndexTableSQL: negated{}}
	var es []entry
	for i, s := range texts {
		// Keys of 1 character ("0") to 20: the in-order range's docids
		// are above 2^62, negated.
		docid := int64(i)
		if i%2 == 1 {
			docid += 1 << 62
		}
		es = append(es, entry{docid: docid, text: s})
	}
	b := ix.entriesJSONB(es)
	var valid int
	if err := db.QueryRow(`SELECT json_valid(?, 8)`, b).Scan(&valid); err != nil || valid != 1 {
		t.Fatalf("json_valid(JSONB, 8) = %d, %v", valid, err)
	}
	rows, err := db.Query(`SELECT CAST(key AS INTEGER), value FROM json_each(?)`, b)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var key int64
		var text string
		if err := rows.Scan(&key, &text); err != nil {
			t.Fatal(err)
		}
		if key != -es[i].docid || text != texts[i] {
			t.Errorf("entry %d: key %d, text %.40q; want %d, %.40q", i, key, text, -es[i].docid, texts[i])
		}
	}
	if err := rows.Err(); err != nil || i != len(texts) {
		t.Fatalf("%d entries read back (%v), want %d", i, err, len(texts))
	}
}

// negated is the key SQLite's index gives a docid (pkg/store/sqlite).
type negated struct{ IndexTableSQL }

func (negated) IndexKey(docid int64) int64 { return -docid }
