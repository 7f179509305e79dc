package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// make man writes one page per command, each with examples, boolean flags
// shown bare as in --help.
func TestGenMan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if err := genMan(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"convo.1", "convo-append.1", "convo-list.1", "convo-show.1", "convo-get.1", "convo-clear.1",
		"convo-schema-set.1", "convo-completion-bash.1", "convo-render.1", "convo-summarize.1"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	for _, path := range pages {
		name := filepath.Base(path)
		page, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			continue
		}
		s := string(page)
		if !strings.Contains(s, ".SH EXAMPLE") {
			t.Errorf("%s has no EXAMPLE section", name)
		}
		if strings.Contains(s, "[=false]") || strings.Contains(s, "[=true|false]") {
			t.Errorf("%s shows a boolean flag with a value:\n%s", name, s)
		}
	}
	list, _ := os.ReadFile(filepath.Join(dir, "convo-list.1"))
	if !strings.Contains(string(list), "\\fB--json\\fP\n") {
		t.Errorf("convo-list.1 does not show --json bare:\n%s", list)
	}
}
