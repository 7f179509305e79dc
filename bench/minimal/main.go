// Command minimal is the floor `convo append` of one message is measured
// against (bench/run-startup.sh): a Go program linking modernc.org/sqlite and
// nothing else of convo, opening an existing store with the same settings and
// appending one record with the same statements in one write transaction:
// read the conversation's counters, insert the record, store the counters.
// It knows none of convo's rules, flags or configuration, and checks no
// schema version. Its record is canonical, so convo can append after it.
//
//	minimal -db STORE -c CONVERSATION -role assistant TEXT
package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	db := flag.String("db", "", "store file")
	conv := flag.String("c", "", "conversation")
	role := flag.String("role", "assistant", "role")
	flag.Parse()
	if *db == "" || *conv == "" || flag.NArg() != 1 {
		log.Fatal("usage: minimal -db STORE -c CONVERSATION [-role R] TEXT")
	}
	if err := appendOne(*db, *conv, *role, flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

func appendOne(path, conv, role, text string) error {
	// The settings sqlite.Open gives every store connection.
	d, err := sql.Open("sqlite", path+"?_busy_timeout=30000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return err
	}
	defer d.Close()
	tx, err := d.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var pos, seq int64
	if err := tx.QueryRow(`SELECT next_pos, next_seq FROM conversations WHERE id = ?`, conv).Scan(&pos, &seq); err != nil {
		return fmt.Errorf("read conversation %s: %w", conv, err)
	}
	now := time.Now().UnixMilli()
	id := newULID(now)
	var rec record
	rec.ID, rec.Conversation = id, conv
	rec.Message.Role, rec.Message.Contents = role, []string{text}
	rec.Metadata.Timing.Creation = now
	body, err := json.Marshal(&rec)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES (?, ?, ?, 0, ?, ?, ?, ?)`,
		conv, id, pos, role, now, seq, string(body)); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE conversations SET next_pos = ?, next_seq = ?, updated = ? WHERE id = ?`,
		pos+1, seq+1, now, conv); err != nil {
		return err
	}
	return tx.Commit()
}

// record is a canonical record of one message, its fields in canonical order.
type record struct {
	ID           string `json:"id"`
	Conversation string `json:"conversation"`
	Message      struct {
		Role     string   `json:"role"`
		Contents []string `json:"contents"`
	} `json:"message"`
	Metadata struct {
		Timing struct {
			Creation int64 `json:"creation"`
		} `json:"timing"`
	} `json:"metadata"`
}

// newULID is a ULID (48 bits of ms time, 80 random bits, Crockford base32),
// the id form convo's records carry.
func newULID(ms int64) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b [16]byte
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	rand.Read(b[6:])
	var out [26]byte
	// 128 bits as 26 5-bit digits, the first holding the top 3 bits.
	hi := uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	lo := uint64(b[8])<<56 | uint64(b[9])<<48 | uint64(b[10])<<40 | uint64(b[11])<<32 |
		uint64(b[12])<<24 | uint64(b[13])<<16 | uint64(b[14])<<8 | uint64(b[15])
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
