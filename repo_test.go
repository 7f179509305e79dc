package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// trackedData lists the files over trackedLimit the repository holds on
// purpose (data, not build output), by path.
var trackedData = map[string]bool{
	// The token vocabularies, read in place (pkg/tokens/internal/bpe);
	// make tokens writes them from tiktoken-go.
	"pkg/tokens/tables/o200k_base.bpe":  true,
	"pkg/tokens/tables/cl100k_base.bpe": true,
}

const trackedLimit = 1 << 20

// trackedFiles is `git ls-files`, or a skip where git or the checkout is
// missing (a source archive).
func trackedFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// The repository holds no build output: no tracked file is an executable
// (ELF, Mach-O, PE), and none is over 1 MB unless trackedData lists it.
// `go build ./bench/seed` at the root once committed two binaries, 94% of
// the tracked bytes.
func TestRepoHoldsNoBuildOutput(t *testing.T) {
	for _, path := range trackedFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			continue
		}
		head := make([]byte, 4096)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if kind := executableKind(head[:n]); kind != "" {
			t.Errorf("%s is a %s executable: build output does not belong in the repository (git rm --cached it, add it to .gitignore)", path, kind)
		}
		if fi.Size() > trackedLimit && !trackedData[path] {
			t.Errorf("%s is %d bytes, over %d: list it in trackedData (repo_test.go) if it is data, else remove it", path, fi.Size(), trackedLimit)
		}
	}
}

// executableKind names the executable format head starts with, "" for
// none: ELF, Mach-O (either byte order, 32 or 64 bits, universal), or PE
// (an MZ stub whose header offset points at "PE\0\0").
func executableKind(head []byte) string {
	if len(head) < 4 {
		return ""
	}
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case slices.Contains([]uint32{0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe}, binary.BigEndian.Uint32(head)):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")) && len(head) >= 0x40:
		off := int(binary.LittleEndian.Uint32(head[0x3c:]))
		if off+4 <= len(head) && bytes.Equal(head[off:off+4], []byte("PE\x00\x00")) {
			return "PE"
		}
	}
	return ""
}

func TestRepoExecutableKind(t *testing.T) {
	pe := make([]byte, 0x100)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	for _, tt := range []struct {
		head []byte
		want string
	}{
		{[]byte("\x7fELF\x02\x01\x01"), "ELF"},
		{[]byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "Mach-O"},
		{[]byte{0xfe, 0xed, 0xfa, 0xce, 0, 0, 0, 7}, "Mach-O"},
		{[]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, "Mach-O"},
		{pe, "PE"},
		{[]byte("MZ is a text that starts like a PE stub but is none" + strings.Repeat(".", 64)), ""},
		{[]byte("package main\n"), ""},
		{[]byte("#!/bin/sh\n"), ""},
	} {
		if got := executableKind(tt.head); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.head[:min(8, len(tt.head))], got, tt.want)
		}
	}
}

// docs/architecture.md names every package of the module, and no package
// that is gone: its Layout block against `go list ./...`.
func TestRepoArchitectureListsEveryPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var listed []string
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, strings.TrimSuffix(module, "/"))
		if !ok {
			continue
		}
		rel = strings.TrimPrefix(rel, "/")
		if rel == "" {
			rel = "."
		}
		listed = append(listed, rel)
	}
	documented, err := architecturePackages("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range listed {
		if !slices.Contains(documented, p) {
			t.Errorf("package %s is not in docs/architecture.md's Layout: add a line for it", p)
		}
	}
	for _, p := range documented {
		if !slices.Contains(listed, p) {
			t.Errorf("docs/architecture.md's Layout names %s, which go list ./... does not list", p)
		}
	}
}

// architecturePackages reads the package paths of the Layout block: the
// first word of each line that starts in the first column, its slash cut.
func architecturePackages(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, layout, ok := strings.Cut(string(data), "## Layout\n")
	if !ok {
		return nil, fmt.Errorf("%s has no ## Layout section", path)
	}
	_, block, ok := strings.Cut(layout, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		return nil, fmt.Errorf("%s: no code block under ## Layout", path)
	}
	var pkgs []string
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		p := strings.TrimSuffix(strings.Fields(line)[0], "/")
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}
