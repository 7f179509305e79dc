// Command listseed fills a store with N conversations of T records each,
// as N imports or appends would: one transaction per conversation through
// the store's own append path, with the figures list shows kept by every
// write, as the convo command keeps them (bench/run-list.sh).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	db := flag.String("db", "", "store: a SQLite file or a postgres:// URL")
	n := flag.Int("n", 10000, "conversations")
	per := flag.Int("records", 100, "records per conversation")
	flag.Parse()
	ctx := context.Background()
	var s *sqlstore.Store
	var err error
	if strings.HasPrefix(*db, "postgres") {
		s, err = postgres.Open(ctx, *db)
	} else {
		s, err = sqlite.Open(ctx, *db)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		log.Fatal(err)
	}
	s.SetFigures(tokens.Default, counter.Stored)
	ids := transcript.NewIDs()
	// Each conversation's records were made over a day, a minute apart,
	// conversations an hour apart: last activity is none of the writes'.
	const start = int64(1767225600000) // 2026-01-01
	for c := range *n {
		_, err := s.Append(ctx, fmt.Sprintf("session-%05d", c), ids, func(yield func(*transcript.Record) error) error {
			for i := range *per {
				role := []transcript.Role{"user", "assistant"}[i%2]
				r := transcript.Record{Message: transcript.Message{Role: role, Contents: []string{
					fmt.Sprintf("Turn %d of session %d: we looked at the failing test in pkg/store, order #%d, and the deploy.", i, c, 4000+i)}}}
				r.Metadata.Timing.Creation = start + int64(c)*3_600_000 + int64(i)*60_000
				if err := yield(&r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
}
