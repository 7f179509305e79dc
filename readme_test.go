package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/pkg/dynamo/dynamotest"
	"github.com/rogpeppe/go-internal/txtar"
)

// readmeBlock returns the lines of README.md between <!-- NAME --> and
// <!-- /NAME -->, less the ``` fence lines.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- "+name+" -->\n")
	block, _, ok2 := strings.Cut(rest, "<!-- /"+name+" -->")
	if !ok || !ok2 {
		t.Fatalf("README.md has no <!-- %s --> ... <!-- /%s --> block", name, name)
	}
	var lines []string
	for _, line := range strings.SplitAfter(block, "\n") {
		if !strings.HasPrefix(line, "```") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "")
}

// The README's quick tour runs as written, line by line in its order, from
// the repository root with the files of examples/: a line that fails (a
// missing file, a command refused, a step in the wrong order) fails the
// test and names the line. convo is the test binary (see TestMain).
func TestReadmeTour(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the tour is a bash session:", err)
	}
	tour := readmeBlock(t, "tour")
	if !strings.Contains(tour, "convo ") {
		t.Fatalf("the tour runs no convo command:\n%s", tour)
	}
	// After the tour, show of its conversation is for people: it fits
	// 80 columns (stdout is no terminal), with no JSON, epoch
	// milliseconds or ids in it.
	// The tour writes its files next to its store, in the directory it
	// makes, never into the clone it runs from: after it, the working
	// directory holds only what the test put there.
	ar := &txtar.Archive{Comment: []byte("exec bash tour.sh\n" +
		"! grep '.{81,}' show.txt\n! grep '\\{\"' show.txt\n! grep '[0-9]{13}' show.txt\n! grep '[0-9A-Z]{26}' show.txt\ngrep '\\^  summary' show.txt\n" +
		"exec bash -c 'ls | tr \"\\n\" \" \"'\nstdout '^examples show.txt tour.sh $'\n")}
	ar.Files = append(ar.Files, txtar.File{Name: "tour.sh", Data: []byte(
		"set -euo pipefail\ntrap 'echo \"README tour: this line failed: $BASH_COMMAND\" >&2' ERR\nset -x\n" + visibleRewinds(tour) +
			"convo show -c demo > show.txt\n")})
	examples, err := filepath.Glob("examples/*")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples/: %v", err)
	}
	for _, path := range examples {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ar.Files = append(ar.Files, txtar.File{Name: filepath.ToSlash(path), Data: data})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tour.txtar"), txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
	params := scriptParams(false, func(env *testscript.Env) (string, error) { return env.WorkDir + "/convo.db", nil })
	params.Dir = dir
	testscript.Run(t, params)
}

// visibleRewinds makes each `convo rewind` line of the tour fail unless it
// removes something (it prints what it removed): a rewind that does nothing
// shows a newcomer nothing.
func visibleRewinds(tour string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(tour, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); strings.HasPrefix(cmd, "convo rewind ") {
			fmt.Fprintf(&b, "out=$(%s); test -n \"$out\" || { echo 'README tour: %s removed nothing' >&2; false; }; printf '%%s\\n' \"$out\"\n", cmd, cmd)
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// The README says what make test installs and where: dynalite, with npm,
// into the directory dynamotest uses; docs/development.md has the table
// of what every target installs.
func TestReadmeSaysWhatTestsInstall(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DYNALITE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	dir := strings.Replace(dynamotest.Dir(), "/home/someone", "~", 1)
	flat := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{"npm install dynalite@4", "`" + dir + "`", "DYNALITE_DIR"} {
		if !strings.Contains(flat, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	dev, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## What each command installs", "npm install dynalite@4", "DYNALITE_DIR"} {
		if !strings.Contains(string(dev), want) {
			t.Errorf("docs/development.md does not say %q", want)
		}
	}
}

// The README is a user's guide a newcomer reads in five minutes: under
// 12,000 characters, and its first 40 lines say what convo is, how to
// install it, the two commands (the test command the one .ci/run runs),
// and a table from task to section.
func TestReadmeIsAGuide(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(readme); n >= 12000 {
		t.Errorf("README.md is %d characters, want under 12,000: move detail into docs/", n)
	}
	lines := strings.SplitN(string(readme), "\n", 41)
	top := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, want := range []string{"make install", "make demo ", "make test ", "| to ... | read |", "#keep-a-chat-from-a-shell-loop", "#export-to-a-log-or-dynamodb"} {
		if !strings.Contains(top, want) {
			t.Errorf("README.md's first 40 lines lack %q", want)
		}
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
		t.Error(".ci/run no longer runs make test, the README's test command")
	}
	// Figures live in one place: the summarizer's evaluation is
	// docs/summarize.md's, not the README's.
	for _, gone := range []string{"LoCoMo", "answers kept"} {
		if strings.Contains(string(readme), gone) {
			t.Errorf("README.md speaks of %q: the evaluation's figures belong in docs/summarize.md", gone)
		}
	}
}

// Every relative link of the README and of docs/ names a file that
// exists, and an anchor a heading of it.
func TestReadmeLinksResolve(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append([]string{"README.md", "examples/README.md"}, files...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			if path == "" {
				path = file
			} else {
				path = filepath.Join(filepath.Dir(file), path)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s links %s: %v", file, target, err)
				continue
			}
			if anchor == "" || fi.IsDir() || !strings.HasSuffix(path, ".md") {
				continue
			}
			doc, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				continue
			}
			if !slices.Contains(headingAnchors(string(doc)), anchor) {
				t.Errorf("%s links %s: %s has no heading #%s", file, target, path, anchor)
			}
		}
	}
}

// withoutCode is markdown text less its fenced blocks and inline code,
// where a ](...) is no link.
func withoutCode(s string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(regexp.MustCompile("`[^`]*`").ReplaceAllString(line, ""))
		}
	}
	return b.String()
}

// headingAnchors are the anchors GitHub gives a document's headings: lower
// case, spaces as hyphens, punctuation but hyphens and underscores gone,
// a repeated one numbered.
func headingAnchors(doc string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(withoutCode(doc), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			a = fmt.Sprintf("%s-%d", a, n)
		}
		seen[b.String()]++
		out = append(out, a)
	}
	return out
}

// make demo (and every target that builds) says first that it builds and
// that the first build is slow: a cold build is minutes of silence.
func TestMakeSaysBuildingFirst(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make:", err)
	}
	tmp := t.TempDir()
	out, err := exec.Command("make", "-n", "--no-print-directory", "demo", "BIN="+filepath.Join(tmp, "convo"), "DEMO_DB="+filepath.Join(tmp, "demo.db")).CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if !strings.Contains(lines[0], "building") || !strings.Contains(lines[0], "first build takes a few minutes") || !strings.Contains(lines[1], "go build") {
		t.Errorf("make demo does not say it builds before it does:\n%s", out)
	}
}
