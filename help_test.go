package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/helptopics"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// runConvo runs convo in process and returns its exit status and output.
func runConvo(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	io, out, errOut := iostreams.Test("")
	code := cmd.Run(context.Background(), args, io)
	return code, out.String(), errOut.String()
}

// `convo help exit-codes` and `convo help environment` are help topics
// (not the root's help, as any unknown topic once was), and the root's
// --help names both.
func TestHelpTopics(t *testing.T) {
	for _, tt := range []struct {
		topic string
		want  []string
	}{
		// (import among the commands that say what they stored: issue 38)
		{"exit-codes", []string{"  0 ", "  2 ", "  4 ", "129, 130, 143", "  141 ", "usage error", "import: the chunks committed"}},
		{"environment", []string{"CONVO_DB", "CONVO_CONFIG", "OPENAI_API_KEY", "NO_COLOR", "PGPASSWORD", "XDG_DATA_HOME"}},
	} {
		code, out, errOut := runConvo(t, "help", tt.topic)
		if code != exitcode.OK || errOut != "" {
			t.Errorf("convo help %s: exit %d, stderr %q", tt.topic, code, errOut)
		}
		if strings.Contains(out, "Available Commands") {
			t.Errorf("convo help %s prints the root's help:\n%s", tt.topic, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("convo help %s lacks %q:\n%s", tt.topic, w, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if len([]rune(line)) > 80 {
				t.Errorf("convo help %s: line over 80 columns: %q", tt.topic, line)
			}
		}
	}
	_, root, _ := runConvo(t, "--help")
	for _, w := range []string{"convo help exit-codes", "convo help environment"} {
		if !strings.Contains(root, w) {
			t.Errorf("convo --help does not name %q:\n%s", w, root)
		}
	}
	if strings.Contains(root, "one SQLite file") {
		t.Errorf("convo --help still says the store is one SQLite file:\n%s", root)
	}
}

// The exit-codes topic and docs/spec.md's section 6 are the same table:
// the same codes, the same words (less the spec's backquotes). One of them
// changed alone fails here.
func TestHelpExitCodesMatchSpec(t *testing.T) {
	spec, err := os.ReadFile("docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(spec), "## 6. Errors and exit codes\n")
	if !ok {
		t.Fatal("docs/spec.md has no section 6, Errors and exit codes")
	}
	var rows [][2]string
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| code") || strings.HasPrefix(line, "| ---") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		code, text, _ := strings.Cut(strings.Trim(line, "| "), " | ")
		rows = append(rows, [2]string{code, strings.ReplaceAll(text, "`", "")})
	}
	var topic []helptopics.Entry
	for _, tp := range helptopics.All() {
		if tp.Name == "exit-codes" {
			for _, s := range tp.Sections {
				topic = append(topic, s.Entries...)
			}
		}
	}
	if len(rows) != len(topic) {
		t.Errorf("docs/spec.md section 6 has %d rows, convo help exit-codes %d", len(rows), len(topic))
	}
	for i := range min(len(rows), len(topic)) {
		if rows[i][0] != topic[i].Name || rows[i][1] != topic[i].Text {
			t.Errorf("exit status row %d differs; change internal/helptopics/topics.go and docs/spec.md together:\n spec: %s | %s\n code: %s | %s",
				i+1, rows[i][0], rows[i][1], topic[i].Name, topic[i].Text)
		}
	}
}

// Every environment variable convo's own code reads is in `convo help
// environment`: a name read by os.Getenv, named by a registry entry
// (KeyEnv, BaseURLEnv) or a constant env..., in cmd/ and pkg/ (test
// helpers and cmd/genman left out).
func TestHelpEnvironmentNamesEveryVariable(t *testing.T) {
	_, topic, _ := runConvo(t, "help", "environment")
	read := regexp.MustCompile(`(?:Getenv|LookupEnv|xdgDir)\("([A-Z][A-Z0-9_]*)"|\b(?:[A-Za-z]*Env|env[A-Z][A-Za-z]*)\s*[:=]\s*"([A-Z][A-Z0-9_]*)"`)
	var names []string
	for _, root := range []string{"cmd", "pkg"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "genman" || strings.HasSuffix(d.Name(), "test")) {
				return filepath.SkipDir // storetest, dynamotest: for tests; genman: no part of convo
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range read.FindAllStringSubmatch(string(src), -1) {
				name := m[1] + m[2]
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) < 10 {
		t.Fatalf("found only %v: is the pattern still right?", names)
	}
	for _, name := range names {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(topic) {
			t.Errorf("convo help environment does not name %s, which the code reads", name)
		}
	}
}
