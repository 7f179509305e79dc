package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is convo's JSON Schema validator: the assertions of draft
// 2020-12 (and draft-07's spellings of them), with $ref inside the document.
// It exists so that nothing is compiled before main: a validator library
// that compiles its meta-schemas at package init cost every convo process
// about 6 ms, while only ask and the tests validate anything. A schema using
// a keyword it does not implement (unevaluated*, dynamic or remote
// references, a nested $id) is refused when compiled rather than half
// checked; unknown keywords are ignored, as the specification says, and so
// are annotations (format included, as draft 2020-12 has it by default).

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

// fill compiles the keywords of obj, found at ptr, into s.
func (c *compiler) fill(s *schema, obj map[string]any, ptr string) error {
	for _, u := range unsupported {
		if _, ok := obj[u.keyword]; ok {
			return fmt.Errorf("%s: %s", u.keyword, u.why)
		}
	}
	if _, ok := obj["$id"]; ok && ptr != "" {
		return errors.New("$id: only the root may have one")
	}
	sub := func(key string) (*schema, error) {
		v, ok := obj[key]
		if !ok {
			return nil, nil
		}
		return c.compileAt(v, ptr+"/"+escape(key))
	}
	subs := func(key string) ([]*schema, error) {
		v, ok := obj[key]
		if !ok {
			return nil, nil
		}
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return nil, fmt.Errorf("%s: want a non-empty array of schemas", key)
		}
		out := make([]*schema, len(arr))
		for i, e := range arr {
			var err error
			if out[i], err = c.compileAt(e, ptr+"/"+key+"/"+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	schemaMap := func(key string) (map[string]*schema, error) {
		v, ok := obj[key]
		if !ok {
			return nil, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want an object of schemas", key)
		}
		out := make(map[string]*schema, len(m))
		for k, e := range m {
			var err error
			if out[k], err = c.compileAt(e, ptr+"/"+key+"/"+escape(k)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	count := func(key string, dst *int) error {
		v, ok := obj[key]
		if !ok {
			return nil
		}
		r, ok := rat(v)
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return fmt.Errorf("%s: want a non-negative integer", key)
		}
		*dst = int(r.Num().Int64())
		return nil
	}
	number := func(key string, dst **big.Rat) error {
		v, ok := obj[key]
		if !ok {
			return nil
		}
		r, ok := rat(v)
		if !ok {
			return fmt.Errorf("%s: want a number", key)
		}
		*dst = r
		return nil
	}
	var err error
	// $defs (and draft-07's definitions) are compiled so that an error in
	// one shows whether or not anything refers to it.
	for _, key := range []string{"$defs", "definitions"} {
		if _, err = schemaMap(key); err != nil {
			return err
		}
	}
	if v, ok := obj["$ref"]; ok {
		ref, ok := v.(string)
		if !ok {
			return errors.New("$ref: want a string")
		}
		if !strings.HasPrefix(ref, "#") || (len(ref) > 1 && ref[1] != '/') {
			return fmt.Errorf("$ref %q: only references inside the document (#/...) are supported: nothing is loaded from elsewhere", ref)
		}
		c.refs = append(c.refs, pendingRef{from: s, ptr: ref[1:], loc: ptr})
	}
	if v, ok := obj["type"]; ok {
		switch t := v.(type) {
		case string:
			s.types = []string{t}
		case []any:
			for _, e := range t {
				name, ok := e.(string)
				if !ok {
					return errors.New("type: want a type name or an array of them")
				}
				s.types = append(s.types, name)
			}
		default:
			return errors.New("type: want a type name or an array of them")
		}
		for _, name := range s.types {
			switch name {
			case "null", "boolean", "object", "array", "number", "integer", "string":
			default:
				return fmt.Errorf("type: unknown type %q", name)
			}
		}
	}
	if v, ok := obj["enum"]; ok {
		if s.enum, ok = v.([]any); !ok {
			return errors.New("enum: want an array")
		}
	}
	s.constant, s.hasConstant = obj["const"]
	for key, dst := range map[string]**big.Rat{"multipleOf": &s.multipleOf, "maximum": &s.maximum,
		"exclusiveMaximum": &s.exclusiveMaximum, "minimum": &s.minimum, "exclusiveMinimum": &s.exclusiveMinimum} {
		if err := number(key, dst); err != nil {
			return err
		}
	}
	if s.multipleOf != nil && s.multipleOf.Sign() <= 0 {
		return errors.New("multipleOf: want a number above 0")
	}
	for key, dst := range map[string]*int{"maxLength": &s.maxLength, "minLength": &s.minLength,
		"maxItems": &s.maxItems, "minItems": &s.minItems, "maxContains": &s.maxContains, "minContains": &s.minContains,
		"maxProperties": &s.maxProperties, "minProperties": &s.minProperties} {
		if err := count(key, dst); err != nil {
			return err
		}
	}
	if v, ok := obj["pattern"]; ok {
		p, ok := v.(string)
		if !ok {
			return errors.New("pattern: want a string")
		}
		if s.pattern, err = regexp.Compile(p); err != nil {
			return fmt.Errorf("pattern: %w", err)
		}
	}
	if v, ok := obj["uniqueItems"]; ok {
		if s.uniqueItems, ok = v.(bool); !ok {
			return errors.New("uniqueItems: want a boolean")
		}
	}
	if v, ok := obj["required"]; ok {
		if s.required, ok = stringList(v); !ok {
			return errors.New("required: want an array of strings")
		}
	}
	if v, ok := obj["dependentRequired"]; ok {
		if s.dependentRequired, ok = stringLists(v); !ok {
			return errors.New("dependentRequired: want an object of arrays of strings")
		}
	}
	if s.properties, err = schemaMap("properties"); err != nil {
		return err
	}
	if v, ok := obj["patternProperties"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return errors.New("patternProperties: want an object of schemas")
		}
		for _, p := range sortedKeys(m) {
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("patternProperties: %w", err)
			}
			ps, err := c.compileAt(m[p], ptr+"/patternProperties/"+escape(p))
			if err != nil {
				return err
			}
			s.patternProperties = append(s.patternProperties, patternSchema{re, ps})
		}
	}
	if s.additionalProperties, err = sub("additionalProperties"); err != nil {
		return err
	}
	if s.propertyNames, err = sub("propertyNames"); err != nil {
		return err
	}
	if s.dependentSchemas, err = schemaMap("dependentSchemas"); err != nil {
		return err
	}
	if s.contains, err = sub("contains"); err != nil {
		return err
	}
	if c.draft7 {
		// draft-07: items is a schema or the prefix array, additionalItems
		// the rest; dependencies is dependentRequired and dependentSchemas.
		if arr, ok := obj["items"].([]any); ok && len(arr) > 0 {
			if s.prefixItems, err = subs("items"); err != nil {
				return err
			}
			if s.items, err = sub("additionalItems"); err != nil {
				return err
			}
		} else if s.items, err = sub("items"); err != nil {
			return err
		}
		if v, ok := obj["dependencies"]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				return errors.New("dependencies: want an object")
			}
			for k, e := range m {
				if names, ok := stringList(e); ok {
					if s.dependentRequired == nil {
						s.dependentRequired = map[string][]string{}
					}
					s.dependentRequired[k] = names
					continue
				}
				d, err := c.compileAt(e, ptr+"/dependencies/"+escape(k))
				if err != nil {
					return err
				}
				if s.dependentSchemas == nil {
					s.dependentSchemas = map[string]*schema{}
				}
				s.dependentSchemas[k] = d
			}
		}
	} else {
		if s.prefixItems, err = subs("prefixItems"); err != nil {
			return err
		}
		if s.items, err = sub("items"); err != nil {
			return err
		}
	}
	if s.allOf, err = subs("allOf"); err != nil {
		return err
	}
	if s.anyOf, err = subs("anyOf"); err != nil {
		return err
	}
	if s.oneOf, err = subs("oneOf"); err != nil {
		return err
	}
	if s.not, err = sub("not"); err != nil {
		return err
	}
	if s.ifS, err = sub("if"); err != nil {
		return err
	}
	if s.thenS, err = sub("then"); err != nil {
		return err
	}
	if s.elseS, err = sub("else"); err != nil {
		return err
	}
	return nil
}

// validate appends to errs, one per line, why v (at instance location loc)
// does not match s. errs nil only asks whether it does: the first failure
// ends the walk.
func (s *schema) validate(v any, loc string, errs *[]string) bool {
	ok := true
	fail := func(format string, args ...any) bool {
		ok = false
		if errs != nil {
			*errs = append(*errs, fmt.Sprintf("- at '%s': ", loc)+fmt.Sprintf(format, args...))
		}
		return errs != nil // go on only when collecting reasons
	}
	if s.boolean != nil {
		if !*s.boolean {
			fail("false schema allows nothing")
		}
		return ok
	}
	if s.ref != nil && !s.ref.validate(v, loc, errs) {
		if ok = false; errs == nil {
			return false
		}
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		if !fail("got %s, want %s", typeOf(v), strings.Join(s.types, " or ")) {
			return false
		}
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return equal(v, e) }) {
		if !fail("value must be one of %s", jsonList(s.enum)) {
			return false
		}
	}
	if s.hasConstant && !equal(v, s.constant) {
		if !fail("value must be %s", jsonText(s.constant)) {
			return false
		}
	}
	switch x := v.(type) {
	case json.Number:
		if !s.number(x, fail) {
			return false
		}
	case string:
		if !s.text(x, fail) {
			return false
		}
	case []any:
		if !s.array(x, loc, errs, fail) {
			ok = false
			if errs == nil {
				return false
			}
		}
	case map[string]any:
		if !s.object(x, loc, errs, fail) {
			ok = false
			if errs == nil {
				return false
			}
		}
	}
	for _, a := range s.allOf {
		if !a.validate(v, loc, errs) {
			if ok = false; errs == nil {
				return false
			}
		}
	}
	if s.anyOf != nil && !slices.ContainsFunc(s.anyOf, func(a *schema) bool { return a.validate(v, loc, nil) }) {
		if !fail("anyOf failed: matches none of %d schemas", len(s.anyOf)) {
			return false
		}
	}
	if s.oneOf != nil {
		n := 0
		for _, a := range s.oneOf {
			if a.validate(v, loc, nil) {
				n++
			}
		}
		if n != 1 && !fail("oneOf failed: matches %d of %d schemas, want exactly 1", n, len(s.oneOf)) {
			return false
		}
	}
	if s.not != nil && s.not.validate(v, loc, nil) {
		if !fail("not failed: matches the schema it must not") {
			return false
		}
	}
	if s.ifS != nil {
		branch := s.elseS
		if s.ifS.validate(v, loc, nil) {
			branch = s.thenS
		}
		if branch != nil && !branch.validate(v, loc, errs) {
			ok = false
		}
	}
	return ok
}

func (s *schema) number(n json.Number, fail func(string, ...any) bool) bool {
	r, _ := new(big.Rat).SetString(string(n))
	if r == nil {
		return true // encoding/json checked it: not reached
	}
	switch {
	case s.multipleOf != nil && !new(big.Rat).Quo(r, s.multipleOf).IsInt():
		return fail("%s is not a multiple of %s", n, s.multipleOf.RatString())
	case s.maximum != nil && r.Cmp(s.maximum) > 0:
		return fail("%s is above the maximum %s", n, s.maximum.RatString())
	case s.exclusiveMaximum != nil && r.Cmp(s.exclusiveMaximum) >= 0:
		return fail("%s is not below %s", n, s.exclusiveMaximum.RatString())
	case s.minimum != nil && r.Cmp(s.minimum) < 0:
		return fail("%s is below the minimum %s", n, s.minimum.RatString())
	case s.exclusiveMinimum != nil && r.Cmp(s.exclusiveMinimum) <= 0:
		return fail("%s is not above %s", n, s.exclusiveMinimum.RatString())
	}
	return true
}

func (s *schema) text(x string, fail func(string, ...any) bool) bool {
	n := utf8.RuneCountInString(x)
	switch {
	case s.maxLength >= 0 && n > s.maxLength:
		return fail("length must be <= %d, but got %d", s.maxLength, n)
	case s.minLength >= 0 && n < s.minLength:
		return fail("length must be >= %d, but got %d", s.minLength, n)
	case s.pattern != nil && !s.pattern.MatchString(x):
		return fail("%q does not match pattern %q", x, s.pattern.String())
	}
	return true
}

func (s *schema) array(x []any, loc string, errs *[]string, fail func(string, ...any) bool) bool {
	ok := true
	check := func(good bool) bool {
		if !good {
			ok = false
		}
		return good || errs != nil
	}
	if s.maxItems >= 0 && len(x) > s.maxItems && !check(fail("at most %d items, got %d", s.maxItems, len(x))) {
		return false
	}
	if s.minItems >= 0 && len(x) < s.minItems && !check(fail("at least %d items, got %d", s.minItems, len(x))) {
		return false
	}
	if s.uniqueItems {
	dup:
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if equal(x[i], x[j]) {
					if !check(fail("items at %d and %d are equal", i, j)) {
						return false
					}
					break dup
				}
			}
		}
	}
	for i, e := range x {
		var sub *schema
		switch {
		case i < len(s.prefixItems):
			sub = s.prefixItems[i]
		case s.items != nil:
			sub = s.items
		default:
			continue
		}
		if !check(sub.validate(e, loc+"/"+strconv.Itoa(i), errs)) {
			return false
		}
	}
	if s.contains != nil {
		n := 0
		for i, e := range x {
			if s.contains.validate(e, loc+"/"+strconv.Itoa(i), nil) {
				n++
			}
		}
		minC := 1
		if s.minContains >= 0 {
			minC = s.minContains
		}
		if n < minC && !check(fail("%d items match contains, want at least %d", n, minC)) {
			return false
		}
		if s.maxContains >= 0 && n > s.maxContains && !check(fail("%d items match contains, want at most %d", n, s.maxContains)) {
			return false
		}
	}
	return ok
}

func (s *schema) object(x map[string]any, loc string, errs *[]string, fail func(string, ...any) bool) bool {
	ok := true
	check := func(good bool) bool {
		if !good {
			ok = false
		}
		return good || errs != nil
	}
	if s.maxProperties >= 0 && len(x) > s.maxProperties && !check(fail("at most %d properties, got %d", s.maxProperties, len(x))) {
		return false
	}
	if s.minProperties >= 0 && len(x) < s.minProperties && !check(fail("at least %d properties, got %d", s.minProperties, len(x))) {
		return false
	}
	for _, name := range s.required {
		if _, has := x[name]; !has && !check(fail("missing property '%s'", name)) {
			return false
		}
	}
	keys := sortedKeys(x) // reasons in a stable order
	for _, k := range keys {
		for _, name := range s.dependentRequired[k] {
			if _, has := x[name]; !has && !check(fail("property '%s' requires property '%s'", k, name)) {
				return false
			}
		}
		if d := s.dependentSchemas[k]; d != nil && !check(d.validate(x, loc, errs)) {
			return false
		}
	}
	var extra []string
	for _, k := range keys {
		at := loc + "/" + escape(k)
		if s.propertyNames != nil && !s.propertyNames.validate(k, at, nil) && !check(fail("property name '%s' is not allowed", k)) {
			return false
		}
		matched := false
		if p := s.properties[k]; p != nil {
			matched = true
			if !check(p.validate(x[k], at, errs)) {
				return false
			}
		}
		for _, pp := range s.patternProperties {
			if pp.re.MatchString(k) {
				matched = true
				if !check(pp.s.validate(x[k], at, errs)) {
					return false
				}
			}
		}
		if matched || s.additionalProperties == nil {
			continue
		}
		if b := s.additionalProperties.boolean; b != nil && !*b {
			extra = append(extra, "'"+k+"'")
			continue
		}
		if !check(s.additionalProperties.validate(x[k], at, errs)) {
			return false
		}
	}
	if len(extra) > 0 && !check(fail("additional properties %s not allowed", strings.Join(extra, ", "))) {
		return false
	}
	return ok
}

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
