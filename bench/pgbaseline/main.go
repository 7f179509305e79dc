// Command pgbaseline is the yardstick for `convo append`'s bulk speed into
// PostgreSQL: plain pgx CopyFrom of the same rows into the same schema, in
// batched transactions, with none of convo's parsing, rules or validation.
// It reads the canonical JSONL convo would store.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	db := flag.String("db", "", "postgres:// URL")
	batch := flag.Int("batch", 10000, "rows per transaction")
	flag.Parse()
	ctx := context.Background()
	// Through convo's own Open once, so that the schema exists.
	s, err := postgres.Open(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ids := transcript.NewIDs()
	now := time.Now().UnixMilli()
	start := time.Now()
	cols := []string{"conversation", "id", "pos", "sub", "role", "created", "seq", "body"}
	var rows [][]any
	n := 0
	send := func() {
		tx, err := conn.Begin(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"records"}, cols, pgx.CopyFromRows(rows)); err != nil {
			log.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			log.Fatal(err)
		}
		rows = rows[:0]
	}
	for sc.Scan() {
		n++
		role := "user"
		if n%2 == 0 {
			role = "assistant"
		}
		rows = append(rows, []any{"base", ids.New(now), int64(n), int64(0), role, now, int64(n), sc.Text()})
		if len(rows) == *batch {
			send()
		}
	}
	if len(rows) > 0 {
		send()
	}
	fmt.Fprintf(os.Stderr, "pgbaseline: %d rows in %v\n", n, time.Since(start))
}
