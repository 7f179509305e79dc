package facts

// The sections' text: how they are fitted to a budget, written after the
// summary's heading and read back from a previous summary.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/tokens"
)

// headingRE is the first line of the sections: a summary's text opens
// with the first section that has entries.
var headingRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:Requests \(the user's, verbatim, first to latest\)|Files|Commands|Errors)(?: \(\d+ left out\))?:\n`)
})

// CutSections returns text without the sections it opens with, if any.
func CutSections(text string) string {
	if headingRE().MatchString(text) {
		_, rest, _ := strings.Cut(text, "\n\n")
		return rest
	}
	return text
}

// Fit bounds s within budget tokens (see the bounds above) and returns
// what it keeps and its text ("" for nothing). Every request line is
// one text: a request's line breaks are indented, so the block holds no
// blank line and ends at the first.
func (s Sections) Fit(budget int, c *tokens.Counter) (Sections, string) {
	if s.Empty() {
		return s, ""
	}
	keepLast := func(n int, dropped *int, l int) int {
		if l > n {
			*dropped += l - n
			return l - n
		}
		return 0
	}
	s.Files = s.Files[keepLast(MaxFiles, &s.FilesDropped, len(s.Files)):]
	s.Commands = s.Commands[keepLast(MaxCommands, &s.CommandsDropped, len(s.Commands)):]
	s.Errors = s.Errors[keepLast(MaxErrors, &s.ErrorsDropped, len(s.Errors)):]
	// The first and the latest always; the others newest first within
	// the requests' share.
	if n := len(s.Requests); n > 1 {
		share := budget / RequestsShare
		used := c.Count(requestLine(s.First)) + c.Count(requestLine(s.Requests[n-1]))
		from := n - 1
		for from > 0 {
			cost := c.Count(requestLine(s.Requests[from-1]))
			if used+cost > share {
				break
			}
			used += cost
			from--
		}
		s.RequestsDropped += from
		s.Requests = s.Requests[from:]
	}
	text := s.text()
	// Past the sections' share the oldest commands go first (the most
	// numerous, and the Errors say what failed), then the oldest files,
	// then the requests but the first and the latest, then the errors
	// down to ErrorsFloor, the runner's marks first, then the oldest.
	for limit := budget / SectionsShare; c.Count(text) > limit; text = s.text() {
		switch {
		case len(s.Commands) > 0:
			s.Commands, s.CommandsDropped = s.Commands[1:], s.CommandsDropped+1
		case len(s.Files) > 0:
			s.Files, s.FilesDropped = s.Files[1:], s.FilesDropped+1
		case len(s.Requests) > 1:
			s.Requests, s.RequestsDropped = s.Requests[1:], s.RequestsDropped+1
		case len(s.Errors) > ErrorsFloor:
			// A runner's mark (--- FAIL) goes before a line that says
			// what failed; among equals the oldest.
			i := slices.IndexFunc(s.Errors, func(e Error) bool { return failMark(e.Line) })
			s.Errors, s.ErrorsDropped = slices.Delete(s.Errors, max(i, 0), max(i, 0)+1), s.ErrorsDropped+1
		default:
			return s, text
		}
	}
	return s, text
}

// requestLine is a request as its section shows it: verbatim, up to
// maxRequestBytes (a longer one keeps its start up to a sentence's end,
// marked " […]"), its line breaks indented.
func requestLine(r string) string {
	if len(r) > maxRequestBytes {
		cut := clipBytes(r, maxRequestBytes)
		cut = strings.TrimSuffix(cut, "…")
		if i := strings.LastIndexAny(cut, ".!?\n"); i > maxRequestBytes/2 {
			cut = cut[:i+1]
		}
		r = strings.TrimSpace(cut) + " […]"
	}
	return "- " + strings.ReplaceAll(r, "\n", "\n  ")
}

// text renders the sections.
func (s Sections) text() string {
	var b strings.Builder
	left := func(n int) string {
		if n > 0 {
			return fmt.Sprintf(" (%d left out)", n)
		}
		return ""
	}
	if s.First != "" {
		b.WriteString("Requests (the user's, verbatim, first to latest)")
		b.WriteString(left(s.RequestsDropped))
		b.WriteString(":\n")
		b.WriteString(requestLine(s.First))
		for _, r := range s.Requests {
			b.WriteString("\n")
			b.WriteString(requestLine(r))
		}
	}
	if len(s.Files) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Files" + left(s.FilesDropped) + ":")
		for _, f := range s.Files {
			b.WriteString("\n- ")
			b.WriteString(f.Path)
			b.WriteString(": ")
			for i, op := range f.Did {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(op.Op)
				if op.N > 1 {
					fmt.Fprintf(&b, " ×%d", op.N)
				}
			}
		}
	}
	if len(s.Commands) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Commands" + left(s.CommandsDropped) + ":")
		for _, c := range s.Commands {
			b.WriteString("\n- `")
			b.WriteString(strings.ReplaceAll(c.Cmd, "\n", " "))
			b.WriteString("`")
			if c.Outcome != "" {
				b.WriteString(" → ")
				b.WriteString(strings.ReplaceAll(c.Outcome, "\n", " "))
			}
		}
	}
	if len(s.Errors) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Errors" + left(s.ErrorsDropped) + ":")
		for _, e := range s.Errors {
			b.WriteString("\n- ")
			if e.From != "" {
				b.WriteString("`")
				b.WriteString(strings.ReplaceAll(e.From, "\n", " "))
				b.WriteString("`: ")
			}
			b.WriteString(e.Line)
		}
	}
	return b.String()
}
