package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every convo process runs the init of every package linked into it before
// main, whatever the command: one `convo append` is meant to cost little
// more than a bare Go program doing the same insert (bench/run-startup.sh).
// Wall time is too noisy to test; what init allocates is not, and work done
// at init shows in it (a JSON Schema library compiling its meta-schemas
// there allocated 1.7 MB). These bounds leave room for today's linked
// packages, not for another that does real work at init.
const (
	maxInitBytesPerPackage = 1 << 20
	maxInitBytesTotal      = 3_500_000
)

func TestStartupInitAllocations(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "convo")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("convo --version: %v\n%s", err, stderr.Bytes())
	}
	inits, err := parseInitTrace(stderr.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) < 50 {
		t.Fatalf("only %d package inits traced: is GODEBUG=inittrace=1 still honoured?", len(inits))
	}
	slices.SortFunc(inits, func(a, b pkgInit) int { return b.bytes - a.bytes })
	total := 0
	for _, in := range inits {
		total += in.bytes
	}
	top := inits[:min(5, len(inits))]
	if inits[0].bytes > maxInitBytesPerPackage {
		t.Errorf("package %s allocates %d bytes at init (at most %d): defer that work to first use; largest: %v",
			inits[0].pkg, inits[0].bytes, maxInitBytesPerPackage, top)
	}
	if total > maxInitBytesTotal {
		t.Errorf("linked packages allocate %d bytes at init (at most %d); largest: %v", total, maxInitBytesTotal, top)
	}
}

type pkgInit struct {
	pkg   string
	bytes int
}

func (p pkgInit) String() string { return fmt.Sprintf("%s %d B", p.pkg, p.bytes) }

// parseInitTrace reads GODEBUG=inittrace=1 lines:
// "init PKG @0.5 ms, 0.01 ms clock, 1234 bytes, 5 allocs".
func parseInitTrace(b []byte) ([]pkgInit, error) {
	var out []pkgInit
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			return nil, fmt.Errorf("inittrace line %q: %w", sc.Text(), err)
		}
		out = append(out, pkgInit{f[1], n})
	}
	return out, sc.Err()
}
