package schemas

import (
	"strings"
	"testing"
)

// TestValidateKeywords: each keyword the validator implements, with a value
// that matches and one that does not (want: a substring of the reasons).
func TestValidateKeywords(t *testing.T) {
	for _, tc := range []struct {
		schema, good, bad, want string
	}{
		{`{"type":"integer"}`, `1.0`, `1.5`, "got number, want integer"},
		{`{"type":["string","null"]}`, `null`, `true`, "got boolean, want string or null"},
		{`{"enum":[1,"a",{"b":[2]}]}`, `{"b":[2.0]}`, `{"b":[3]}`, "must be one of 1, \"a\", {\"b\":[2]}"},
		{`{"const":12345678901234567890}`, `12345678901234567890`, `12345678901234567891`, "must be 12345678901234567890"},
		{`{"multipleOf":0.1}`, `0.3`, `0.35`, "not a multiple of 1/10"},
		{`{"maximum":3}`, `3`, `3.01`, "above the maximum 3"},
		{`{"exclusiveMaximum":3}`, `2.99`, `3`, "not below 3"},
		{`{"minimum":-1}`, `-1`, `-1.5`, "below the minimum -1"},
		{`{"exclusiveMinimum":0}`, `0.001`, `0`, "not above 0"},
		{`{"minLength":2,"maxLength":3}`, `"éé"`, `"abcd"`, "length must be <= 3"},
		{`{"minLength":2}`, `"ab"`, `"é"`, "length must be >= 2"},
		{`{"pattern":"^a+$"}`, `"aaa"`, `"ab"`, `does not match pattern "^a+$"`},
		{`{"minItems":1,"maxItems":2}`, `[1]`, `[]`, "at least 1 items"},
		{`{"maxItems":1}`, `[1]`, `[1,2]`, "at most 1 items"},
		{`{"uniqueItems":true}`, `[1,"1",[1]]`, `[{"a":1},{"a":1.0}]`, "items at 0 and 1 are equal"},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,2]`, `["a",1,"b"]`, "at '/2': got string, want integer"},
		{`{"items":false,"prefixItems":[true]}`, `[1]`, `[1,2]`, "at '/1': false schema"},
		{`{"contains":{"const":2}}`, `[1,2]`, `[1,3]`, "0 items match contains, want at least 1"},
		{`{"contains":{"const":2},"maxContains":1}`, `[2,1]`, `[2,2]`, "want at most 1"},
		{`{"contains":{"const":2},"minContains":0}`, `[]`, `"not an array: fine"`, ""},
		{`{"required":["a","b"]}`, `{"a":1,"b":2}`, `{"a":1}`, "missing property 'b'"},
		{`{"minProperties":1,"maxProperties":1}`, `{"a":1}`, `{"a":1,"b":2}`, "at most 1 properties"},
		{`{"dependentRequired":{"a":["b"]}}`, `{"b":1}`, `{"a":1}`, "property 'a' requires property 'b'"},
		{`{"dependentSchemas":{"a":{"required":["c"]}}}`, `{"a":1,"c":2}`, `{"a":1}`, "missing property 'c'"},
		{`{"properties":{"a/b":{"type":"string"}}}`, `{"a/b":"x"}`, `{"a/b":1}`, "at '/a~1b': got integer"},
		{`{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`, `{"x-a":1}`, `{"x-a":1,"y":2,"z":3}`, "additional properties 'y', 'z' not allowed"},
		{`{"additionalProperties":{"type":"boolean"}}`, `{"a":true}`, `{"a":"no"}`, "at '/a': got string, want boolean"},
		{`{"propertyNames":{"maxLength":2}}`, `{"ab":1}`, `{"abc":1}`, "property name 'abc' is not allowed"},
		{`{"allOf":[{"minimum":1},{"maximum":2}]}`, `1.5`, `3`, "above the maximum 2"},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, `1.5`, "matches none of 2 schemas"},
		{`{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `-1`, `1`, "matches 2 of 2 schemas"},
		{`{"not":{"type":"null"}}`, `0`, `null`, "not failed"},
		{`{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, `"a"`, `-1`, "below the minimum 0"},
		{`{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, `2`, `true`, "got boolean, want string"},
		{`{"$defs":{"pos":{"minimum":0}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, `{"n":1}`, `{"n":-1}`, "at '/n': -1 is below"},
		{`{"type":"object","properties":{"next":{"$ref":"#"}},"required":["v"]}`, `{"v":1,"next":{"v":2}}`, `{"v":1,"next":{"next":{"v":3}}}`, "at '/next': missing property 'v'"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, `["a"]`, `["a",1]`, "at '/1': false schema"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"items":{"$ref":"#/definitions/s"},"dependencies":{"a":["b"]}}`, `["x"]`, `{"a":1}`, "requires property 'b'"},
		{`{"format":"email","title":"t","description":"d","x-vendor":{"type":"string"}}`, `"not an email"`, ``, ""},
	} {
		a, err := CompileAnswer([]byte(tc.schema))
		if err != nil {
			t.Errorf("%s: %v", tc.schema, err)
			continue
		}
		if err := a.Check(tc.good); err != nil {
			t.Errorf("%s: %s rejected: %v", tc.schema, tc.good, err)
		}
		if tc.want == "" {
			continue
		}
		if err := a.Check(tc.bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %s: %v, want %q", tc.schema, tc.bad, err, tc.want)
		}
	}
}

// TestValidateAllReasons: every reason is reported, not the first alone.
func TestValidateAllReasons(t *testing.T) {
	a, err := CompileAnswer([]byte(`{"type":"object","properties":{"a":{"type":"string"},"b":{"maximum":1}},"required":["c"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Check(`{"a":1,"b":2,"d":3}`)
	want := "does not match:\n- at '': missing property 'c'\n- at '/a': got integer, want string\n- at '/b': 2 is above the maximum 1\n- at '': additional properties 'd' not allowed"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestCompileRefuses: what the validator does not implement is refused,
// never half checked, and so is a schema that is not one.
func TestCompileRefuses(t *testing.T) {
	for body, want := range map[string]string{
		`{"unevaluatedProperties":false}`:                       "unevaluatedProperties: not implemented",
		`{"items":{"unevaluatedItems":false}}`:                  "at '/items': unevaluatedItems: not implemented",
		`{"$dynamicRef":"#x"}`:                                  "$dynamicRef: not implemented",
		`{"properties":{"a":{"$id":"x"}}}`:                      "only the root may have one",
		`{"$ref":"#anchor"}`:                                    "only references inside the document",
		`{"$ref":"other.json#/a"}`:                              "only references inside the document",
		`{"$ref":"#/$defs/missing"}`:                            `no "#/$defs/missing" in the document`,
		`{"$schema":"http://json-schema.org/draft-04/schema#"}`: "only draft 2020-12 and draft-07",
		`{"type":"text"}`:                                       `unknown type "text"`,
		`{"items":[{"type":"string"}]}`:                         "at '/items': a schema is an object or a boolean",
		`{"minLength":-1}`:                                      "minLength: want a non-negative integer",
		`{"maxItems":1.5}`:                                      "maxItems: want a non-negative integer",
		`{"multipleOf":0}`:                                      "multipleOf: want a number above 0",
		`{"pattern":"("}`:                                       "pattern: error parsing regexp",
		`{"required":"a"}`:                                      "required: want an array of strings",
		`{"anyOf":[]}`:                                          "anyOf: want a non-empty array",
		`{"$defs":{"x":{"type":1}}}`:                            "at '/$defs/x': type:",
		`{"type":"object"} {}`:                                  "not JSON",
		`{"$ref":"#"}`:                                          "loops back",
		`{"allOf":[{"not":{"$ref":"#"}}]}`:                      "loops back",
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"items":{"$ref":"#/$defs/a"}}`: "loops back",
	} {
		if _, err := CompileAnswer([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	// Recursion that goes into the value each turn is a tree, not a loop.
	for _, body := range []string{
		`{"allOf":[{"properties":{"a":{"$ref":"#"}}}]}`,
		`{"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}`,
		`{"anyOf":[{"type":"null"},{"properties":{"next":{"$ref":"#"}}}]}`,
	} {
		a, err := CompileAnswer([]byte(body))
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if err := a.Check(`{"a":{"a":{}},"next":null}`); err != nil && !strings.Contains(body, "array") {
			t.Errorf("%s: %v", body, err)
		}
	}
}
