package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make install PREFIX=DIR puts convo, its man pages and its completions
// where the README says, and the installed convo --version names the commit
// it was built from and when. It builds convo (a few seconds warm), so -short
// skips it; make test runs it in full.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds convo and its man pages: run without -short (make test does)")
	}
	for _, tool := range []string{"make", "git", "install"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "prefix")
	make := exec.Command("make", "--no-print-directory", "install", "PREFIX="+prefix, "BIN="+filepath.Join(tmp, "build", "convo"))
	out, err := make.CombinedOutput()
	if err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "building ") || !strings.Contains(strings.SplitN(string(out), "\n", 2)[0], "first build takes a few minutes") {
		t.Errorf("make install does not say first that it builds, and that it takes a while:\n%s", out)
	}
	for _, file := range []string{
		"bin/convo",
		"share/man/man1/convo.1", "share/man/man1/convo-list.1", "share/man/man1/convo-schema-set.1",
		"share/bash-completion/completions/convo",
		"share/zsh/site-functions/_convo",
		"share/fish/vendor_completions.d/convo.fish",
	} {
		if fi, err := os.Stat(filepath.Join(prefix, file)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not installed (%v)", file, err)
		}
	}
	version, err := exec.Command(filepath.Join(prefix, "bin", "convo"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if commit := strings.TrimSpace(string(head))[:12]; !strings.Contains(string(version), "commit "+commit) || !strings.Contains(string(version), ", built 20") {
		t.Errorf("convo --version: %q, want commit %s and the build date", version, commit)
	}

	if out, err := exec.Command("make", "--no-print-directory", "uninstall", "PREFIX="+prefix).CombinedOutput(); err != nil {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	var left []string
	filepath.Walk(prefix, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("make uninstall left %v", left)
	}
}
