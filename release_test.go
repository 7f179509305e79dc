package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/cmd"
)

// TestReleaseConfig reads .goreleaser.yaml as text (goreleaser check, run
// by .ci/run, validates its schema): the six targets, the -X names
// cmd/version.go declares and the Makefile stamps, a cask that lists every
// man page cmd/genman writes, and the goreleaser the Makefile pins.
func TestReleaseConfig(t *testing.T) {
	config := readFile(t, ".goreleaser.yaml")
	for key, want := range map[string][]string{
		"goos":   {"linux", "darwin", "windows"},
		"goarch": {"amd64", "arm64"},
	} {
		got := yamlList(config, key)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf(".goreleaser.yaml %s: %v, want %v", key, got, want)
		}
	}

	// The -X names: cmd/version.go's package variables, the Makefile's
	// LDFLAGS and the release build's ldflags all say the same three.
	declared := packageVars(t, "cmd/version.go")
	stamped := regexp.MustCompile(`-X github\.com/convo-cli/convo/cmd\.(\w+)=`)
	names := func(text string) []string {
		var out []string
		for _, m := range stamped.FindAllStringSubmatch(text, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		slices.Sort(out)
		return out
	}
	_, builds, _ := strings.Cut(config, "\nbuilds:")
	builds, _, _ = strings.Cut(builds, "\narchives:")
	makefile := readFile(t, "Makefile")
	for where, got := range map[string][]string{
		".goreleaser.yaml builds": names(builds),
		"Makefile":                names(makefile),
	} {
		if want := []string{"commit", "date", "version"}; !slices.Equal(got, want) {
			t.Errorf("%s stamps %v, want %v", where, got, want)
		}
		for _, n := range got {
			if !slices.Contains(declared, n) {
				t.Errorf("%s stamps cmd.%s, which cmd/version.go does not declare", where, n)
			}
		}
	}

	// The archives carry the pages and completions the cask installs.
	for _, want := range []string{"dst: man/man1", "dst: completions", "./cmd/genman -dir bin/release/man1",
		"completion bash > bin/release/completions/convo\"", "bash: completions/convo\n",
		"completion zsh > bin/release/completions/_convo\"", "zsh: completions/_convo\n",
		"completion fish > bin/release/completions/convo.fish\"", "fish: completions/convo.fish\n",
		"homebrew_casks:", "skip_upload: true", "checksum:"} {
		if !strings.Contains(config, want) {
			t.Errorf(".goreleaser.yaml does not hold %q", want)
		}
	}
	var pages []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) { // as cmd/genman's genMan walks
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		pages = append(pages, "man/man1/"+strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cmd.NewRootCmd())
	listed := yamlList(config, "manpages")
	slices.Sort(pages)
	slices.Sort(listed)
	if !slices.Equal(listed, pages) {
		t.Errorf(".goreleaser.yaml homebrew_casks manpages:\n%v\nwant every page cmd/genman writes:\n%v", listed, pages)
	}

	// goreleaser runs through go run at a pinned version, not from go.mod.
	if !strings.Contains(makefile, "GORELEASER_VERSION ?= v2.16.0\n") ||
		!strings.Contains(makefile, " run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)\n") {
		t.Error("the Makefile does not run goreleaser v2.16.0 through go run")
	}
	if strings.Contains(readFile(t, "go.mod"), "goreleaser") {
		t.Error("go.mod requires goreleaser: the Makefile runs it with go run instead")
	}
	if !strings.Contains(readFile(t, ".ci/run"), "make release-check") {
		t.Error(".ci/run does not run make release-check (goreleaser check)")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// yamlList is the first list under key in a YAML text, written either
// inline (key: [a, b]) or as a block of "- item" lines below it.
func yamlList(text, key string) []string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(trimmed, key+":")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		var out []string
		if strings.HasPrefix(rest, "[") {
			for _, item := range strings.Split(strings.Trim(rest, "[]"), ",") {
				out = append(out, strings.Trim(strings.TrimSpace(item), `"'`))
			}
			return out
		}
		for _, next := range lines[i+1:] {
			item, ok := strings.CutPrefix(strings.TrimSpace(next), "- ")
			if !ok {
				break
			}
			out = append(out, strings.Trim(strings.TrimSpace(item), `"'`))
		}
		return out
	}
	return nil
}

// packageVars is the names of the package-level variables a Go file declares.
func packageVars(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}
