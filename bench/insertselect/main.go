// Command insertselect is the floor of a fork or copy inside one store as
// convo runs SQLite (modernc.org/sqlite, WAL, synchronous NORMAL): the
// statement issue 40 measures against, INSERT INTO records SELECT ... FROM
// records, copying conversation -from to -to with the rows as they are.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/convo-cli/convo/pkg/store/sqlite"
)

func main() {
	db := flag.String("db", "", "store file")
	from := flag.String("from", "base", "conversation copied")
	to := flag.String("to", "base2", "conversation made")
	flag.Parse()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	res, err := s.DB().ExecContext(ctx, `INSERT INTO records (conversation, id, pos, sub, role, created, seq, body)
		SELECT ?, id, pos, sub, role, created, seq, body FROM records WHERE conversation = ?`, *to, *from)
	if err != nil {
		log.Fatal(err)
	}
	n, _ := res.RowsAffected()
	fmt.Printf("%d rows in %s\n", n, time.Since(start))
}
