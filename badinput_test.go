package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputLeavesStore: input that cannot be written is exit 3 with the
// line named, and the store stays byte for byte what it was.
func TestBadInputLeavesStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	seed(t, db, "c", 4)
	before := dump(t, db, "c")
	good := `{"role":"user","content":"fine"}` + "\n"
	cases := map[string]struct{ line, want string }{
		"5 MiB record":   {`{"role":"user","content":"` + strings.Repeat("x", 5<<20) + `"}`, "line 3: message.contents[0]: the record is 5242911 bytes"},
		"30 MiB line":    {`{"role":"user","content":"` + strings.Repeat("x", 30<<20) + `"}`, "line 3: line is longer than"},
		"unknown key":    {`{"message":{"role":"user","contents":["x"]},"meta":{"aux":{"k":1}}}`, "line 3: meta: unknown key"},
		"negative time":  {`{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"llmStart":-100}}}`, "line 3: metadata.timing.llmStart: negative time"},
		"invalid UTF-8":  {"{\"role\":\"user\",\"content\":\"\xc3\x28\"}", "line 3: invalid UTF-8 at column 27"},
		"NUL byte":       {"{\"role\":\"user\",\"content\":\"a\x00b\"}", "line 3: NUL byte at column 28"},
		"malformed JSON": {`{"role":"user","content":`, "line 3: invalid JSON"},
		"unknown role":   {`{"role":"bot","content":"x"}`, `line 3: role: unknown role "bot"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, errOut, code := run(t, good+good+tc.line+"\n"+good, "--db", db, "append", "-c", "c")
			if code != 3 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 3 and %q", code, errOut, tc.want)
			}
			if dump(t, db, "c") != before {
				t.Fatal("the store changed")
			}
		})
	}
}
