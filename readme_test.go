package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	ar := &txtar.Archive{Comment: []byte("exec bash tour.sh\n")}
	ar.Files = append(ar.Files, txtar.File{Name: "tour.sh", Data: []byte(
		"set -euo pipefail\ntrap 'echo \"README tour: this line failed: $BASH_COMMAND\" >&2' ERR\nset -x\n" + tour)})
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

// The README says what make test installs and where: dynalite, with npm,
// into the directory dynamotest uses.
func TestReadmeSaysWhatTestsInstall(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DYNALITE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	dir := strings.Replace(dynamotest.Dir(), "/home/someone", "~", 1)
	for _, want := range []string{"npm install dynalite@4", "`" + dir + "`", "DYNALITE_DIR", "## What each command installs"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
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
