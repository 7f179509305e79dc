// Package schemas embeds the JSON Schemas of convo's output, the
// machine-readable form of SPEC section 1, and checks LLM answers against
// the answer schemas users give (answer.go), with its own validator
// (validate.go), which compiles nothing before it is used.
package schemas

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Record is the JSON Schema (2020-12) of a canonical record.
//
//go:embed record.schema.json
var Record []byte

var (
	recordOnce   sync.Once
	recordSchema *schema
	recordErr    error
)

// ValidateRecord checks one canonical JSON record against Record. The schema
// is compiled on first use, so commands that never validate never pay for it.
func ValidateRecord(line []byte) error {
	recordOnce.Do(func() {
		var doc any
		if doc, recordErr = decode(Record); recordErr == nil {
			recordSchema, recordErr = compile(doc)
		}
	})
	if recordErr != nil {
		return fmt.Errorf("record schema: %w", recordErr)
	}
	return recordSchema.check(line, "the record schema")
}

// check validates one JSON document against s, naming s as what in the
// error, with every reason it does not match.
func (s *schema) check(line []byte, what string) error {
	v, err := decode(line)
	if err != nil {
		return err
	}
	var reasons []string
	if !s.validate(v, "", &reasons) {
		return errors.New("does not match " + what + ":\n" + strings.Join(reasons, "\n"))
	}
	return nil
}
