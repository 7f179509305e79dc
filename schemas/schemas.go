// Package schemas embeds the JSON Schemas of convo's output, the
// machine-readable form of SPEC section 1, and checks LLM answers against
// the answer schemas users give (answer.go). Every schema is compiled on
// first use only.
package schemas

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Record is the JSON Schema (2020-12) of a canonical record.
//
//go:embed record.schema.json
var Record []byte

var (
	recordOnce   sync.Once
	recordSchema *jsonschema.Schema
	recordErr    error
)

// ValidateRecord checks one canonical JSON record against Record. The schema
// is compiled on first use, so commands that never validate never pay for it.
func ValidateRecord(line []byte) error {
	recordOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Record))
		if err != nil {
			recordErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("record.schema.json", doc); err != nil {
			recordErr = err
			return
		}
		recordSchema, recordErr = c.Compile("record.schema.json")
	})
	if recordErr != nil {
		return fmt.Errorf("record schema: %w", recordErr)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return recordSchema.Validate(v)
}
