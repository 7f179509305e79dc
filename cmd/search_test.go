package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/schemas"
)

// Every line of search --json validates against schemas/search.schema.json
// (its record against the record schema), ranked or not.
func TestSearchJSONMatchesSchema(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out := f.IO.Out.(*bytes.Buffer)
	for _, args := range [][]string{
		{"search", "paris OR lisbon OR sunny", "--json"},
		{"search", "paris OR lisbon OR sunny", "--json", "--sort", "rank"},
		{"search", "rain*", "--json", "--role", "assistant"},
	} {
		out.Reset()
		if err := runCmd(t, f, args...); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Fatalf("%v found nothing", args)
		}
		for _, line := range lines {
			if err := schemas.ValidateSearchLine([]byte(line)); err != nil {
				t.Errorf("%v: %v\n%s", args, err, line)
			}
		}
	}
	out.Reset()
	if err := runCmd(t, f, "search", "paris"); err != nil {
		t.Fatal(err)
	}
	// A summary says what it covers; newest first.
	if got := out.String(); !strings.Contains(got, "summary of 2 records") || strings.Index(got, "summary of") > strings.Index(got, "  user  ") {
		t.Errorf("search for people:\n%s", got)
	}
}

func TestSearchFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" for none
	}{
		{[]string{"x"}, ""},
		{[]string{"x", "--since", "7d", "--until", "2026-01-01", "--role", "tool", "--limit", "0", "--sort", "rank"}, ""},
		{[]string{"OR"}, "OR needs"},
		{[]string{"--", "-x"}, "no word to find"},
		{[]string{"x", "--role", "robot"}, "--role"},
		{[]string{"x", "--sort", "best"}, "--sort"},
		{[]string{"x", "--limit", "-1"}, "--limit"},
		{[]string{"x", "--since", "yesterday"}, "--since"},
		{[]string{"x", "-c", ""}, "-c"},
		{[]string{}, "needs a QUERY"},
		{[]string{"a", "OR"}, "OR needs"}, // the arguments are one query
	} {
		f, _, _ := testFactory(t, "")
		_, err := parseFlags(t, f, newCmdSearch, tt.args...)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
			continue
		}
		if err != nil && exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%v: exit %d, want %d", tt.args, exitcode.Of(err), exitcode.Usage)
		}
	}
}
