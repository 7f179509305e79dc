package schemas

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Search is the JSON Schema (2020-12) of one line of `convo search --json`
// (docs/json-output.md).
//
//go:embed search.schema.json
var Search []byte

var searchSchema = sync.OnceValues(func() (*schema, error) {
	doc, err := decode(Search)
	if err != nil {
		return nil, err
	}
	return compile(doc)
})

// ValidateSearchLine checks one line of `convo search --json` against
// Search, and its record against the record schema.
func ValidateSearchLine(line []byte) error {
	s, err := searchSchema()
	if err != nil {
		return fmt.Errorf("search schema: %w", err)
	}
	if err := s.check(line, "the search schema"); err != nil {
		return err
	}
	var v struct{ Record json.RawMessage }
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	return ValidateRecord(v.Record)
}
