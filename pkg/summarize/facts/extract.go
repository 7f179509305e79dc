package facts

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Found is one fact of a text: an identifier (or a user's instruction),
// verbatim, with the words of its own sentence that say what it is.
type Found struct {
	Text  string // a piece of the text, byte for byte
	Label string // "courier reference"; "" when its sentence says nothing of it
	Kind  string // the shape (see shapes), "argument" or "instruction"
	// Named: the label is a noun phrase its sentence names the fact by
	// ("the courier reference is X", "X, our accounts mailbox"), not
	// merely the words beside it.
	Named bool
	// By, when set, says who said it in place of the record's speaker:
	// the call ("tool call bash") whose arguments hold it.
	By string
}

// Extract returns the identifiers of text, in order, each with its label.
// A text that is a JSON object or array (a tool result) gives those of its
// string values, each value's key its label.
func Extract(text string) []Found {
	if values, ok := jsonValues(text); ok {
		var out []Found
		for _, v := range values {
			for _, f := range Extract(v.text) {
				if f.Label == "" {
					f.Label = v.key
				}
				out = append(out, f)
			}
		}
		return out
	}
	var out []Found
	var spans [][2]int
	// No shape spans lines, and most lines of chat hold nothing any shape
	// starts with: the expression runs only on the lines that may match.
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		line := text[at:end]
		if mayHold(line) {
			out, spans = scanLine(line, at, out, spans)
		}
		at = end + 1
	}
	for i := range out {
		prev, next := 0, len(text)
		if i > 0 {
			prev = spans[i-1][1]
		}
		if i+1 < len(spans) {
			next = spans[i+1][0]
		}
		out[i].Label, out[i].Named = label(text, spans[i][0], spans[i][1], prev, next)
	}
	return out
}

// Of returns the facts of one record: the identifiers of its contents (of
// a tool result, only its paths and URLs: see resultFacts), of its tool
// calls' arguments (each whole short value an identifier labelled by the
// call and key: a path, a command, a query), and, of a user's record, the
// instructions.
func Of(r *transcript.Record) []Found {
	if r.IsFake() {
		return nil
	}
	var out []Found
	for _, c := range r.Message.Contents {
		if r.Message.Role == transcript.RoleTool {
			out = append(out, resultFacts(c)...)
			continue
		}
		out = append(out, Extract(c)...)
		if r.Message.Role == transcript.RoleUser {
			out = append(out, Instructions(c)...)
		}
	}
	for _, tc := range r.Message.ToolCalls {
		values, ok := jsonValues(tc.Arguments)
		if !ok {
			continue
		}
		by := "tool call " + tc.Name
		for _, v := range values {
			if len(v.text) <= maxArgument && !strings.Contains(v.text, "\n") && strings.TrimSpace(v.text) != "" {
				out = append(out, Found{Text: v.text, Label: v.key, Kind: "argument", By: by})
				continue
			}
			for _, f := range Extract(v.text) {
				f.Label, f.By = cmp.Or(f.Label, v.key), by
				out = append(out, f)
			}
		}
	}
	return out
}

// resultFacts are the facts of a tool result's body (a file's contents, a
// log): only its paths and URLs, which name what the call worked on. Its
// error lines go to the Errors section (ErrorLines), and its other
// identifiers (the names of code read out of a file, ids printed in a
// log) are facts only when a person or a call names them too: that
// mention makes the entry.
//
// A JSON result's short values (a field of a record looked up: an order's
// status, a SKU) are data, not a body: their identifiers are facts, each
// labelled by its key; a long or multi-line value is a body.
func resultFacts(text string) []Found {
	if values, ok := jsonValues(text); ok {
		var out []Found
		for _, v := range values {
			short := len(v.text) <= maxArgument && !strings.Contains(v.text, "\n")
			for _, f := range Extract(v.text) {
				if short || bodyKinds[f.Kind] {
					f.Label = cmp.Or(f.Label, v.key)
					out = append(out, f)
				}
			}
		}
		return out
	}
	fs := Extract(text)
	out := fs[:0]
	for _, f := range fs {
		if bodyKinds[f.Kind] {
			out = append(out, f)
		}
	}
	return out
}

// bodyKinds are the shapes a tool result's body gives the ledger.
var bodyKinds = map[string]bool{"path": true, "url": true}

// maxArgument: a tool call's argument up to this long is one identifier
// (a path, a command); a longer one (a file's new text) is searched.
const maxArgument = 160

// value is a string value of a JSON text and the key it stands under.
type value struct{ key, text string }

// jsonValues are the string values of text when it is a JSON object or
// array, in order; a number's digits count as its text.
func jsonValues(text string) ([]value, bool) {
	t := strings.TrimSpace(text)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	var v any
	if json.Unmarshal([]byte(t), &v) != nil {
		return nil, false
	}
	var out []value
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, value{key, x})
		case map[string]any:
			// encoding/json gives a map: the text's order is read again
			// from the keys' places so facts stay in order.
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sortByPlace(keys, t)
			for _, k := range keys {
				walk(k, x[k])
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		}
	}
	walk("", v)
	return out, true
}

// sortByPlace orders keys by where `"key"` first stands in text.
func sortByPlace(keys []string, text string) {
	place := make(map[string]int, len(keys))
	for _, k := range keys {
		b, _ := json.Marshal(k)
		place[k] = strings.Index(text, string(b))
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && place[keys[j]] < place[keys[j-1]]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// mayHold reports whether line holds a byte some shape needs: a digit, a
// mark of addresses, paths, code and amounts, an inner capital (CamelCase)
// or a capital beside a hyphen (SKU-ABC). A line without one matches none.
func mayHold(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c >= '0' && c <= '9', c == '@', c == '/', c == '\\', c == '`', c == '#', c == '$', c == '+', c == '_', c >= 0x80:
			return true
		case c >= 'A' && c <= 'Z' && i > 0 && (line[i-1] >= 'a' && line[i-1] <= 'z' || line[i-1] == '-'):
			return true
		case c == '-' && i > 0 && line[i-1] >= 'A' && line[i-1] <= 'Z':
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
}

// scanLine appends the facts of line (at offset in the text) to out and
// their spans to spans. The table, anchored, is tried only at the places
// a word may start (what \b allows) in a token that may hold a fact, or
// before one that may (the shapes of two words, "March 14", "EUR 120",
// need a mark in the second at the latest): far cheaper than one
// unanchored scan, whose every position starts every shape.
func scanLine(line string, offset int, out []Found, spans [][2]int) ([]Found, [][2]int) {
	type token struct{ start, end int }
	var toks []token
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			toks = append(toks, token{i, j})
		}
		i = j
	}
	from := 0 // the end of the last match: nothing before it is tried
	for k, t := range toks {
		if t.end <= from || !mayHold(line[t.start:t.end]) && (k+1 == len(toks) || !mayHold(line[toks[k+1].start:toks[k+1].end])) {
			continue
		}
		for i := max(t.start, from); i < t.end; i++ {
			if i > 0 && isWordByte(line[i-1]) {
				continue
			}
			m := shapeRE().FindStringSubmatchIndex(line[i:])
			if m == nil || m[1] == 0 {
				continue
			}
			kind := kindOf(m)
			s := trimTrail(line[i : i+m[1]])
			start := offset + i
			if kind == "code" {
				s, start = strings.Trim(s, "`"), start+1
			}
			if strings.TrimSpace(s) != "" && !weak(kind, s) {
				spans = append(spans, [2]int{start, start + len(s)})
				out = append(out, Found{Text: s, Kind: kind})
			}
			from = i + m[1]
			i = from - 1 // the rest of the token is tried after the match
		}
	}
	return out, spans
}
