package schemas

import (
	_ "embed"
	"fmt"
	"sync"
)

// List is the JSON Schema (2020-12) of one line of `convo list --json`
// (docs/json-output.md).
//
//go:embed list.schema.json
var List []byte

var listSchema = sync.OnceValues(func() (*schema, error) {
	doc, err := decode(List)
	if err != nil {
		return nil, err
	}
	return compile(doc)
})

// ValidateListEntry checks one line of `convo list --json` against List.
func ValidateListEntry(line []byte) error {
	s, err := listSchema()
	if err != nil {
		return fmt.Errorf("list schema: %w", err)
	}
	return s.check(line, "the list schema")
}
