// Command baseline is the yardstick for `convo append`'s bulk speed: a plain
// Go loop inserting the same rows into the same schema with one prepared
// statement in batched transactions, with none of convo's parsing, rules or
// validation. It reads the canonical JSONL convo would store.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	db := flag.String("db", "", "store file")
	batch := flag.Int("batch", 10000, "rows per transaction")
	flag.Parse()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ids := transcript.NewIDs()
	start := time.Now()
	tx, err := s.DB().Begin()
	if err != nil {
		log.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES ('base', ?, ?, 0, ?, ?, ?, ?)`)
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	now := time.Now().UnixMilli()
	for sc.Scan() {
		n++
		role := "user"
		if n%2 == 0 {
			role = "assistant"
		}
		if _, err := ins.Exec(ids.New(now), n, role, now, n, sc.Text()); err != nil {
			log.Fatal(err)
		}
		if n%*batch == 0 {
			ins.Close()
			if err := tx.Commit(); err != nil {
				log.Fatal(err)
			}
			if tx, err = s.DB().Begin(); err != nil {
				log.Fatal(err)
			}
			if ins, err = tx.Prepare(`INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES ('base', ?, ?, 0, ?, ?, ?, ?)`); err != nil {
				log.Fatal(err)
			}
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "baseline: %d rows in %v\n", n, time.Since(start))
}
