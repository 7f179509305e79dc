package schemas

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// List is the JSON Schema (2020-12) of one line of `convo list --json`
// (docs/json-output.md).
//
//go:embed list.schema.json
var List []byte

var listSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(List))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("list.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("list.schema.json")
})

// ValidateListEntry checks one line of `convo list --json` against List.
func ValidateListEntry(line []byte) error {
	s, err := listSchema()
	if err != nil {
		return fmt.Errorf("list schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return s.Validate(v)
}
