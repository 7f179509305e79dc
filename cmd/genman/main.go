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
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/internal/helptopics"
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
// Each is titled after its command (CONVO-APPEND(1)); the footer holds
// the binary's version and the day it was built. convo(1) also has the
// help topics: EXIT STATUS and ENVIRONMENT.
func genMan(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	version, built := cmd.Release()
	if built.IsZero() {
		built = buildDay()
	}
	built = built.UTC()
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c.HasParent() {
			return nil
		}
		var page bytes.Buffer
		// Title "" makes cobra/doc title the page after its command.
		h := &doc.GenManHeader{Section: "1", Date: &built, Source: "convo " + version, Manual: "convo manual"}
		if err := doc.GenMan(c, h, &page); err != nil {
			return fmt.Errorf("%s: %w", c.CommandPath(), err)
		}
		text := boolDefault.ReplaceAll(page.Bytes(), []byte("$1"))
		// The day, not cobra's month: "2026-11-26".
		text = bytes.Replace(text, []byte(`"`+built.Format("Jan 2006")+`"`), []byte(`"`+built.Format("2006-01-02")+`"`), 1)
		// Neither hyphenated nor justified: flags and paths stay whole,
		// and no line is stretched apart.
		if i := bytes.Index(text, []byte("\n.TH ")); i >= 0 {
			if j := bytes.IndexByte(text[i+1:], '\n'); j >= 0 {
				at := i + 1 + j + 1
				text = append(text[:at:at], append([]byte(".nr HY 0\n.nh\n.ad l\n"), text[at:]...)...)
			}
		}
		text = addSections(text, c)
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
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

// buildDay is when the pages are made, for a convo built without a date:
// SOURCE_DATE_EPOCH when set (reproducible builds), else now.
func buildDay() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0)
		}
	}
	return time.Now()
}

// addSections puts the help topics into convo(1) before SEE ALSO, and into
// every other page a pointer to them.
func addSections(page []byte, c *cobra.Command) []byte {
	var b bytes.Buffer
	if !c.HasParent() {
		for _, t := range helptopics.All() {
			b.WriteString(".SH " + t.ManSection + "\n")
			b.WriteString(roff(t.Intro) + "\n\n")
			for _, s := range t.Sections {
				if s.Title != "" {
					b.WriteString(".SS " + roff(s.Title) + "\n")
				}
				for _, e := range s.Entries {
					b.WriteString(".TP\n\\fB" + roff(e.Name) + "\\fR\n" + roff(e.Text) + "\n")
				}
			}
			if t.Outro != "" {
				b.WriteString(".PP\n" + roff(t.Outro) + "\n")
			}
			b.WriteString("\n\n")
		}
	} else {
		b.WriteString(".SH EXIT STATUS\n0 on success; see \\fBconvo\\fP(1) or \\fBconvo help exit\\-codes\\fP for the others.\n\n\n")
	}
	i := bytes.Index(page, []byte(".SH SEE ALSO"))
	if i < 0 {
		return append(page, b.Bytes()...)
	}
	return append(page[:i:i], append(b.Bytes(), page[i:]...)...)
}

// roff escapes text for a man page: backslashes, hyphens (so that options
// copy as ASCII), and a leading dot or quote that would read as a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
