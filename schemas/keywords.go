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
	k := keywords{c, obj, ptr}
	// $defs (and draft-07's definitions) are compiled so that an error in
	// one shows whether or not anything refers to it.
	for _, key := range []string{"$defs", "definitions"} {
		if _, err := k.schemaMap(key); err != nil {
			return err
		}
	}
	for _, part := range []func(*schema) error{k.ref, k.typ, k.values, k.objects, k.arrays, k.applicators} {
		if err := part(s); err != nil {
			return err
		}
	}
	return nil
}

// ref records a $ref, resolved once the whole document is compiled.
func (k keywords) ref(s *schema) error {
	if v, ok := k.obj["$ref"]; ok {
		ref, ok := v.(string)
		if !ok {
			return errors.New("$ref: want a string")
		}
		if !strings.HasPrefix(ref, "#") || (len(ref) > 1 && ref[1] != '/') {
			return fmt.Errorf("$ref %q: only references inside the document (#/...) are supported: nothing is loaded from elsewhere", ref)
		}
		k.c.refs = append(k.c.refs, pendingRef{from: s, ptr: ref[1:], loc: k.ptr})
	}
	return nil
}

// typ reads type: a name or an array of names.
func (k keywords) typ(s *schema) error {
	if v, ok := k.obj["type"]; ok {
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
	return nil
}

// values reads the keywords on a value itself: enum, const, bounds,
// lengths, pattern, uniqueItems, required.
func (k keywords) values(s *schema) error {
	var err error
	if v, ok := k.obj["enum"]; ok {
		if s.enum, ok = v.([]any); !ok {
			return errors.New("enum: want an array")
		}
	}
	s.constant, s.hasConstant = k.obj["const"]
	for key, dst := range map[string]**big.Rat{"multipleOf": &s.multipleOf, "maximum": &s.maximum,
		"exclusiveMaximum": &s.exclusiveMaximum, "minimum": &s.minimum, "exclusiveMinimum": &s.exclusiveMinimum} {
		if err := k.number(key, dst); err != nil {
			return err
		}
	}
	if s.multipleOf != nil && s.multipleOf.Sign() <= 0 {
		return errors.New("multipleOf: want a number above 0")
	}
	for key, dst := range map[string]*int{"maxLength": &s.maxLength, "minLength": &s.minLength,
		"maxItems": &s.maxItems, "minItems": &s.minItems, "maxContains": &s.maxContains, "minContains": &s.minContains,
		"maxProperties": &s.maxProperties, "minProperties": &s.minProperties} {
		if err := k.count(key, dst); err != nil {
			return err
		}
	}
	if v, ok := k.obj["pattern"]; ok {
		p, ok := v.(string)
		if !ok {
			return errors.New("pattern: want a string")
		}
		if s.pattern, err = regexp.Compile(p); err != nil {
			return fmt.Errorf("pattern: %w", err)
		}
	}
	if v, ok := k.obj["uniqueItems"]; ok {
		if s.uniqueItems, ok = v.(bool); !ok {
			return errors.New("uniqueItems: want a boolean")
		}
	}
	if v, ok := k.obj["required"]; ok {
		if s.required, ok = stringList(v); !ok {
			return errors.New("required: want an array of strings")
		}
	}
	if v, ok := k.obj["dependentRequired"]; ok {
		if s.dependentRequired, ok = stringLists(v); !ok {
			return errors.New("dependentRequired: want an object of arrays of strings")
		}
	}
	return nil
}

// objects reads the keywords on an object's properties.
func (k keywords) objects(s *schema) error {
	var err error
	if s.properties, err = k.schemaMap("properties"); err != nil {
		return err
	}
	if v, ok := k.obj["patternProperties"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return errors.New("patternProperties: want an object of schemas")
		}
		for _, p := range sortedKeys(m) {
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("patternProperties: %w", err)
			}
			ps, err := k.c.compileAt(m[p], k.ptr+"/patternProperties/"+escape(p))
			if err != nil {
				return err
			}
			s.patternProperties = append(s.patternProperties, patternSchema{re, ps})
		}
	}
	if s.additionalProperties, err = k.sub("additionalProperties"); err != nil {
		return err
	}
	if s.propertyNames, err = k.sub("propertyNames"); err != nil {
		return err
	}
	if s.dependentSchemas, err = k.schemaMap("dependentSchemas"); err != nil {
		return err
	}
	return nil
}

// arrays reads contains and the items keywords in the document's draft.
func (k keywords) arrays(s *schema) error {
	var err error
	if s.contains, err = k.sub("contains"); err != nil {
		return err
	}
	if k.c.draft7 {
		// draft-07: items is a schema or the prefix array, additionalItems
		// the rest; dependencies is dependentRequired and dependentSchemas.
		if arr, ok := k.obj["items"].([]any); ok && len(arr) > 0 {
			if s.prefixItems, err = k.subs("items"); err != nil {
				return err
			}
			if s.items, err = k.sub("additionalItems"); err != nil {
				return err
			}
		} else if s.items, err = k.sub("items"); err != nil {
			return err
		}
		if v, ok := k.obj["dependencies"]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				return errors.New("dependencies: want an object")
			}
			for name, e := range m {
				if names, ok := stringList(e); ok {
					if s.dependentRequired == nil {
						s.dependentRequired = map[string][]string{}
					}
					s.dependentRequired[name] = names
					continue
				}
				d, err := k.c.compileAt(e, k.ptr+"/dependencies/"+escape(name))
				if err != nil {
					return err
				}
				if s.dependentSchemas == nil {
					s.dependentSchemas = map[string]*schema{}
				}
				s.dependentSchemas[name] = d
			}
		}
	} else {
		if s.prefixItems, err = k.subs("prefixItems"); err != nil {
			return err
		}
		if s.items, err = k.sub("items"); err != nil {
			return err
		}
	}
	return nil
}

// applicators reads allOf, anyOf, oneOf, not and if/then/else.
func (k keywords) applicators(s *schema) error {
	var err error
	if s.allOf, err = k.subs("allOf"); err != nil {
		return err
	}
	if s.anyOf, err = k.subs("anyOf"); err != nil {
		return err
	}
	if s.oneOf, err = k.subs("oneOf"); err != nil {
		return err
	}
	if s.not, err = k.sub("not"); err != nil {
		return err
	}
	if s.ifS, err = k.sub("if"); err != nil {
		return err
	}
	if s.thenS, err = k.sub("then"); err != nil {
		return err
	}
	if s.elseS, err = k.sub("else"); err != nil {
		return err
	}
	return nil
}

// keywords is one schema object being compiled: its keywords (obj), where
// it stands (ptr) and the compiler that reads its subschemas.
type keywords struct {
	c   *compiler
	obj map[string]any
	ptr string
}

// sub compiles the schema under key, or gives nil when there is none.
func (k keywords) sub(key string) (*schema, error) {
	v, ok := k.obj[key]
	if !ok {
		return nil, nil
	}
	return k.c.compileAt(v, k.ptr+"/"+escape(key))
}

// subs compiles the non-empty array of schemas under key.
func (k keywords) subs(key string) ([]*schema, error) {
	v, ok := k.obj[key]
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
		if out[i], err = k.c.compileAt(e, k.ptr+"/"+key+"/"+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// schemaMap compiles the object of schemas under key.
func (k keywords) schemaMap(key string) (map[string]*schema, error) {
	v, ok := k.obj[key]
	if !ok {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object of schemas", key)
	}
	out := make(map[string]*schema, len(m))
	for name, e := range m {
		var err error
		if out[name], err = k.c.compileAt(e, k.ptr+"/"+key+"/"+escape(name)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// count reads the non-negative integer under key into dst.
func (k keywords) count(key string, dst *int) error {
	v, ok := k.obj[key]
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

// number reads the number under key into dst.
func (k keywords) number(key string, dst **big.Rat) error {
	v, ok := k.obj[key]
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
