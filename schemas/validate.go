package schemas

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validate.go, compile.go, keywords.go and values.go are convo's JSON Schema
// validator: the assertions of draft 2020-12 (and draft-07's spellings of
// them), with $ref inside the document.
// It exists so that nothing is compiled before main: a validator library
// that compiles its meta-schemas at package init cost every convo process
// about 6 ms, while only ask and the tests validate anything. A schema using
// a keyword it does not implement (unevaluated*, dynamic or remote
// references, a nested $id) is refused when compiled rather than half
// checked; unknown keywords are ignored, as the specification says, and so
// are annotations (format included, as draft 2020-12 has it by default).

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
