package format

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// sdkFields reads the fields of interface name from a .d.ts excerpt in
// testdata/sdk: the vendor's own type, as its SDK publishes it.
func sdkFields(t *testing.T, file, name string) []string {
	t.Helper()
	src, err := os.ReadFile("testdata/sdk/" + file)
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)export interface ` + name + ` \{(.*?)\n\}`).FindSubmatch(src)
	if body == nil {
		t.Fatalf("%s: no interface %s", file, name)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^    (\w+)\??:`).FindAllSubmatch(body[1], -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestResponsesCompactionInputShape: a compaction item (and every item kept
// as provider data) goes back to the Responses API with only the keys its
// input type takes (openai 7.60 ResponseCompactionItemParam): created_by,
// output-only, is not sent, as the SDK's toResponseInputItems strips it.
func TestResponsesCompactionInputShape(t *testing.T) {
	allowed := sdkFields(t, "openai-7.60-compaction.d.ts", "ResponseCompactionItemParam")
	output := sdkFields(t, "openai-7.60-compaction.d.ts", "ResponseCompactionItem")
	if !slices.Contains(output, "created_by") || slices.Contains(allowed, "created_by") {
		t.Fatalf("excerpt: output %v, input %v", output, allowed)
	}
	input := `{"id":"01JRZJ166J2WRMF990535EVSR1","conversation":"c","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSR4","conversation":"c","message":{"role":"summary","contents":["[provider compaction: no readable summary]"],"provider_data":[{"provider":"openai-responses","at":0,"item":{"id":"msg_u1","type":"message","status":"completed","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}],"created_by":"user_1"}},{"provider":"openai-responses","at":0,"item":{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-cmp","created_by":"server"}}]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSR1"],"timing":{"creation":2}}}
{"id":"01JRZJ166J2WRMF990535EVSR7","conversation":"c","message":{"role":"user","contents":["Thanks."]},"metadata":{"timing":{"creation":3}}}
`
	var out bytes.Buffer
	req := Request{Provider: openaiResponses, Warn: func(string, ...any) {}}
	if err := RenderTranscript(&out, req, strings.NewReader(input), transcript.NewIDs(), func() int64 { return 1 }); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []map[string]json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(out.Bytes(), &body); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	found := false
	for _, it := range body.Input {
		if _, ok := it["created_by"]; ok {
			t.Errorf("item sent with output-only created_by: %s", out.String())
		}
		if string(it["type"]) != `"compaction"` {
			continue
		}
		found = true
		for k := range it {
			if !slices.Contains(allowed, k) {
				t.Errorf("compaction item sent with %q, not in ResponseCompactionItemParam %v", k, allowed)
			}
		}
		if string(it["encrypted_content"]) != `"gAAAA-cmp"` || string(it["id"]) != `"cmp_1"` {
			t.Errorf("compaction item lost its fields: %s", out.String())
		}
	}
	if !found {
		t.Fatalf("no compaction item sent: %s", out.String())
	}
}
