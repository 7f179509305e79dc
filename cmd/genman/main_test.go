package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/internal/helptopics"
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

// Each page is titled after its command, and its footer holds the
// binary's version and a readable day: no "CONVO(1)" on every page, no
// build timestamp run into the date.
func TestManTitleDateVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if err := genMan(dir); err != nil {
		t.Fatal(err)
	}
	version, _ := cmd.Release()
	th := regexp.MustCompile(`(?m)^\.TH "([^"]*)" "1" "([^"]*)" "([^"]*)" "convo manual"$`)
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) < 10 {
		t.Fatalf("%d pages", len(pages))
	}
	for _, path := range pages {
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := th.FindSubmatch(page)
		if m == nil {
			t.Errorf("%s: no .TH line:\n%.300s", filepath.Base(path), page)
			continue
		}
		want := strings.ToUpper(strings.TrimSuffix(filepath.Base(path), ".1"))
		if title := strings.ReplaceAll(string(m[1]), `\-`, "-"); title != want {
			t.Errorf("%s titled %q, want %q", filepath.Base(path), title, want)
		}
		if _, err := time.Parse("2006-01-02", string(m[2])); err != nil {
			t.Errorf("%s: date %q is no day: %v", filepath.Base(path), m[2], err)
		}
		if string(m[3]) != "convo "+version {
			t.Errorf("%s: source %q, want %q", filepath.Base(path), m[3], "convo "+version)
		}
	}
}

// convo(1) holds the help topics, every exit status and every variable of
// `convo help exit-codes` and `convo help environment`.
func TestManExitStatusAndEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if err := genMan(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "convo.1"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	exit, env, see := strings.Index(s, ".SH EXIT STATUS"), strings.Index(s, ".SH ENVIRONMENT"), strings.Index(s, ".SH SEE ALSO")
	if exit < 0 || env < 0 || !(exit < env && env < see) {
		t.Fatalf("convo.1 lacks EXIT STATUS and ENVIRONMENT before SEE ALSO:\n%s", s)
	}
	for _, topic := range helptopics.All() {
		for _, sec := range topic.Sections {
			for _, e := range sec.Entries {
				if !strings.Contains(s, "\\fB"+roff(e.Name)+"\\fR") {
					t.Errorf("convo.1 %s lacks %s", topic.ManSection, e.Name)
				}
			}
		}
	}
	sub, err := os.ReadFile(filepath.Join(dir, "convo-append.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sub), ".SH EXIT STATUS") {
		t.Error("convo-append.1 does not point at the exit statuses")
	}
}
