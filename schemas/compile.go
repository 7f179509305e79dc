package schemas

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// unsupported are the standard keywords the validator refuses, with why.
var unsupported = [...]struct{ keyword, why string }{
	{"unevaluatedProperties", "not implemented"},
	{"unevaluatedItems", "not implemented"},
	{"$dynamicRef", "not implemented"},
	{"$dynamicAnchor", "not implemented"},
	{"$recursiveRef", "not implemented"},
	{"$recursiveAnchor", "not implemented"},
}

// schema is one compiled (sub)schema.
type schema struct {
	boolean *bool // a true or false schema: nothing else is set

	types       []string
	enum        []any
	constant    any
	hasConstant bool

	multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum *big.Rat

	maxLength, minLength int // -1: none
	pattern              *regexp.Regexp

	maxItems, minItems, maxContains, minContains int // -1: none
	uniqueItems                                  bool
	prefixItems                                  []*schema
	items, contains                              *schema

	maxProperties, minProperties int // -1: none
	required                     []string
	dependentRequired            map[string][]string
	properties                   map[string]*schema
	patternProperties            []patternSchema
	additionalProperties         *schema
	propertyNames                *schema
	dependentSchemas             map[string]*schema

	allOf, anyOf, oneOf []*schema
	not                 *schema
	ifS, thenS, elseS   *schema

	ref *schema // set when the schema has a $ref, after compiling
}

type patternSchema struct {
	re *regexp.Regexp
	s  *schema
}

// compiler compiles one document; subschemas are keyed by their JSON
// pointer, so that a $ref and the walk down to the same place share one.
type compiler struct {
	root   any
	draft7 bool
	at     map[string]*schema
	refs   []pendingRef
}

type pendingRef struct {
	from *schema
	ptr  string // the target, a JSON pointer into the document
	loc  string // where the $ref is, for errors
}

// compile compiles the decoded document (numbers as json.Number).
func compile(doc any) (*schema, error) {
	c := &compiler{root: doc, at: map[string]*schema{}}
	if obj, ok := doc.(map[string]any); ok {
		switch uri, _ := obj["$schema"].(string); uri {
		case "", "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#":
		case "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema#":
			c.draft7 = true
		default:
			return nil, fmt.Errorf("$schema %q: only draft 2020-12 and draft-07 are supported", uri)
		}
	}
	root, err := c.compileAt(doc, "")
	if err != nil {
		return nil, err
	}
	for len(c.refs) > 0 {
		r := c.refs[0]
		c.refs = c.refs[1:]
		target, err := c.resolve(r.ptr)
		if err != nil {
			return nil, fmt.Errorf("at '%s': $ref: %w", r.loc, err)
		}
		r.from.ref = target
	}
	if err := checkLoops(root); err != nil {
		return nil, err
	}
	return root, nil
}

// checkLoops refuses a schema that reaches itself without looking into the
// value ({"$ref":"#"}, or through allOf, not, if...): validating against it
// would never end. A loop through properties or items is fine: each turn
// goes one level into a finite value.
func checkLoops(root *schema) error {
	// Every subschema, each once.
	var nodes []*schema
	seen := map[*schema]bool{}
	var collect func(s *schema)
	collect = func(s *schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		nodes = append(nodes, s)
		for _, sub := range inPlace(s) {
			collect(sub)
		}
		for _, sub := range intoValue(s) {
			collect(sub)
		}
	}
	collect(root)
	// A cycle among the edges that apply to the same value.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*schema]int{}
	var visit func(s *schema) error
	visit = func(s *schema) error {
		switch state[s] {
		case onPath:
			return errors.New("a $ref loops back to its own schema without going into the value")
		case done:
			return nil
		}
		state[s] = onPath
		for _, sub := range inPlace(s) {
			if err := visit(sub); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	for _, s := range nodes {
		if err := visit(s); err != nil {
			return err
		}
	}
	return nil
}

// inPlace returns the subschemas of s that apply to the value s does.
func inPlace(s *schema) []*schema {
	subs := slices.Concat([]*schema{s.ref, s.not, s.ifS, s.thenS, s.elseS}, s.allOf, s.anyOf, s.oneOf)
	for _, k := range slices.Sorted(maps.Keys(s.dependentSchemas)) {
		subs = append(subs, s.dependentSchemas[k])
	}
	return slices.DeleteFunc(subs, func(x *schema) bool { return x == nil })
}

// intoValue returns the subschemas of s that apply to a part of the value.
func intoValue(s *schema) []*schema {
	subs := slices.Concat(s.prefixItems, []*schema{s.items, s.contains, s.additionalProperties, s.propertyNames})
	for _, k := range slices.Sorted(maps.Keys(s.properties)) {
		subs = append(subs, s.properties[k])
	}
	for _, p := range s.patternProperties {
		subs = append(subs, p.s)
	}
	return slices.DeleteFunc(subs, func(x *schema) bool { return x == nil })
}

// resolve compiles the subschema at ptr, once.
func (c *compiler) resolve(ptr string) (*schema, error) {
	if s := c.at[ptr]; s != nil {
		return s, nil
	}
	v := c.root
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := v.(type) {
			case map[string]any:
				var ok bool
				if v, ok = x[tok]; !ok {
					return nil, fmt.Errorf("no %q in the document", "#"+ptr)
				}
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return nil, fmt.Errorf("no %q in the document", "#"+ptr)
				}
				v = x[i]
			default:
				return nil, fmt.Errorf("no %q in the document", "#"+ptr)
			}
		}
	}
	return c.compileAt(v, ptr)
}

func (c *compiler) compileAt(v any, ptr string) (*schema, error) {
	if s := c.at[ptr]; s != nil {
		return s, nil
	}
	s := &schema{maxLength: -1, minLength: -1, maxItems: -1, minItems: -1, maxContains: -1, minContains: -1,
		maxProperties: -1, minProperties: -1}
	c.at[ptr] = s
	if b, ok := v.(bool); ok {
		s.boolean = &b
		return s, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("at '%s': a schema is an object or a boolean", ptr)
	}
	if err := c.fill(s, obj, ptr); err != nil {
		return nil, fmt.Errorf("at '%s': %w", ptr, err)
	}
	return s, nil
}
