// Command seed fills a store with N conversations of T alternating turns,
// through the store's own append path, for the batch benchmarks.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	db := flag.String("db", "", "store: a SQLite file or a postgres:// URL")
	n := flag.Int("n", 1000, "conversations")
	turns := flag.Int("turns", 20, "records per conversation")
	answers := flag.Bool("answers", false, "assistant records carry what ask stores of an answer (provider, model, response id, finish reason, usage), as bench/run-otel.sh wants")
	flag.Parse()
	ctx := context.Background()
	var s store.Store
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
	ids := transcript.NewIDs()
	for c := range *n {
		_, err := s.Append(ctx, fmt.Sprintf("conv-%05d", c), ids, func(yield func(*transcript.Record) error) error {
			for i := 1; i <= *turns; i++ {
				role := []transcript.Role{"user", "assistant"}[(i-1)%2]
				rec := transcript.Record{Message: transcript.Message{Role: role, Contents: []string{
					fmt.Sprintf("Turn %d of conversation %d: we discussed the trip to Lisbon, order #%d and the budget.", i, c, 4000+i)}}}
				if *answers && role == "assistant" {
					rec.Metadata.Aux = map[string]json.RawMessage{"provider": []byte(`"openai"`), "model": []byte(`"gpt-4o-mini"`),
						"response_id": []byte(fmt.Sprintf(`"chatcmpl-%d-%d"`, c, i)), "finish_reason": []byte(`"stop"`),
						"usage": []byte(fmt.Sprintf(`{"completion_tokens":%d,"prompt_tokens":%d}`, 20+i, 100*i))}
				}
				if err := yield(&rec); err != nil {
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
