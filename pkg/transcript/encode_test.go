package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl \x01\x1f\b\f", "nl\n cr\r tab\t", "<html>&amp;", "emoji 🎉 é", "sep \u2028\u2029"} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("%q encoded as %s, decodes to %q (%v)", s, got, back, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if !bytes.Equal(got, bytes.TrimSpace(want.Bytes())) && !strings.ContainsAny(s, "\b\f") {
			t.Errorf("%q: got %s, encoding/json %s", s, got, want.Bytes())
		}
	}
}

// FuzzParseLine: whatever the input, ParseLine returns a valid record whose
// canonical form parses back to itself, or an *InputError.
