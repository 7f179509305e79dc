package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
)

// JSON values as decoded for validation: types, numbers, equality and
// the text of errors.

// decode reads one JSON value, numbers as json.Number (exact), and nothing
// after it.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more after the JSON value")
	}
	return v, nil
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		r, ok := rat(x)
		return t == "integer" && ok && r.IsInt()
	}
	return false
}

func typeOf(v any) string {
	for _, t := range [...]string{"null", "boolean", "string", "array", "object", "integer", "number"} {
		if hasType(v, t) {
			return t
		}
	}
	return fmt.Sprintf("%T", v)
}

func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// equal is JSON equality: numbers by value (1 and 1.0 are equal).
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		ra, ok1 := rat(x)
		rb, ok2 := rat(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, has := y[k]
			if !has || !equal(e, f) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func stringList(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func stringLists(v any) (map[string][]string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string][]string, len(m))
	for k, e := range m {
		if out[k], ok = stringList(e); !ok {
			return nil, false
		}
	}
	return out, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape is a JSON pointer token.
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonText(v)
	}
	return strings.Join(parts, ", ")
}
