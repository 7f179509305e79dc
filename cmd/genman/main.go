// Command genman writes convo's man pages, one per command, into a
// directory: go run ./cmd/genman -dir man/man1 (make man does).
//
// It is a program of its own, not a convo subcommand, so that the convo
// binary does not link cobra/doc and its markdown renderer, which would
// add to every run's start-up for a page read once at install time.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/convo-cli/convo/cmd"
)

func main() {
	dir := flag.String("dir", "man/man1", "directory to write the pages into (created)")
	flag.Parse()
	if err := genMan(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "genman: %v\n", err)
		os.Exit(1)
	}
}

// boolDefault is how cobra/doc writes a boolean flag, "\fB--json\fP[=false]":
// the man page shows it bare, as --help does.
var boolDefault = regexp.MustCompile(`(?m)(\\fP)\[=(?:true|false)\]$`)

// genMan writes one page per available command, the root's convo.1 and
// convo-SUB.1 for each subcommand (convo-schema-set.1 for nested ones).
func genMan(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{Title: "CONVO", Section: "1", Source: "convo " + cmd.Version(), Manual: "convo manual"}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c.HasParent() {
			return nil
		}
		var page bytes.Buffer
		h := *header
		if err := doc.GenMan(c, &h, &page); err != nil {
			return fmt.Errorf("%s: %w", c.CommandPath(), err)
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		if err := os.WriteFile(filepath.Join(dir, name), boolDefault.ReplaceAll(page.Bytes(), []byte("$1")), 0o644); err != nil {
			return err
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(cmd.NewRootCmd())
}
