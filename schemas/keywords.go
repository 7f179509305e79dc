package schemas

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

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
