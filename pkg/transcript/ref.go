package transcript

import (
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"
)

// Ref names one record of a conversation: its id, or one of the names
// below, which a store resolves (see store.Annotate, Fork and Rewind). It
// lets a script say "the answer just given" without knowing its id.
type Ref string

// The record names a Ref may hold instead of an id.
const (
	RefLast          Ref = "last"           // the last record, whatever its role
	RefLastUser      Ref = "last-user"      // the last user record that is not a placeholder
	RefLastAssistant Ref = "last-assistant" // the last assistant record
)

// RefHelp says what a Ref may be, for help texts and errors.
const RefHelp = "a record id, or last, last-user (the last user record that is not a placeholder) or last-assistant"

// ParseRef reads a record reference: one of the names, or a ULID, whose
// case it makes canonical (ids are stored upper-case).
func ParseRef(s string) (Ref, error) {
	switch r := Ref(s); r {
	case RefLast, RefLastUser, RefLastAssistant:
		return r, nil
	}
	if !IsID(s) {
		return "", fmt.Errorf("%q: want %s", s, RefHelp)
	}
	return Ref(strings.ToUpper(s)), nil
}

// ID returns the record id r holds, or false when r is one of the names.
func (r Ref) ID() (string, bool) {
	switch r {
	case RefLast, RefLastUser, RefLastAssistant, "":
		return "", false
	}
	return string(r), true
}

// IsID reports whether s is a record id: a ULID, in either case.
func IsID(s string) bool {
	_, err := ulid.ParseStrict(s)
	return err == nil && len(s) == ulid.EncodedSize
}
