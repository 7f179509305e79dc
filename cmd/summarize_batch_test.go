package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/summarize"
)

// --batch-status takes no other mode.
func TestSummarizeBatchStatusFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--batch-status", "--all"},
		{"--batch-status", "-c", "demo"},
		{"--batch-status", "--batch-in", "r.jsonl"},
		{"--batch-status", "--dry-run"},
	} {
		f, _, _ := testFactory(t, "")
		execFlags(t, newCmdSummarize(f, nil), exitcode.Usage, "--batch-status takes no other mode", args...)
	}
}

// summarize --batch-status --json is a contract (docs/json-output.md):
// each line the real command prints has exactly the fields that page's
// table lists, and is dropped 30 days after it was written.
func TestSummarizeBatchStatusJSONMatchesDocs(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out := f.IO.Out.(*bytes.Buffer)
	if err := runCmd(t, f, "summarize", "--all", "--keep-last", "0", "--summarizer", "anthropic", "--batch-out", "-"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runCmd(t, f, "summarize", "--batch-status", "--json"); err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	if err := json.Unmarshal(out.Bytes(), &entry); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("want one JSON line, got %v:\n%s", err, out)
	}
	if entry["conversation"] != "demo" || entry["covered"] != float64(3) || entry["firstId"] != "01JRZJ166J2WRMF990535EVSQ4" ||
		entry["expires"].(float64)-entry["created"].(float64) != float64(summarize.BatchPendingAge.Milliseconds()) {
		t.Errorf("entry %v", entry)
	}
	var got []string
	for k := range entry {
		got = append(got, k)
	}
	slices.Sort(got)
	if want := documentedBatchStatusFields(t); !slices.Equal(got, want) {
		t.Errorf("fields %v, docs/json-output.md lists %v", got, want)
	}
}

// documentedBatchStatusFields are the fields docs/json-output.md's table
// for summarize --batch-status --json names.
func documentedBatchStatusFields(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/json-output.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## `convo summarize --batch-status --json`")
	if !ok {
		t.Fatal("docs/json-output.md has no section for summarize --batch-status --json")
	}
	section, _, _ = strings.Cut(section, "\n## ") // up to the next section
	var fields []string
	row := regexp.MustCompile("(?m)^\\| (`[a-zA-Z]+`(?:, `[a-zA-Z]+`)*) \\|")
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, name := range strings.Split(m[1], ", ") {
			fields = append(fields, strings.Trim(name, "`"))
		}
	}
	slices.Sort(fields)
	return fields
}
