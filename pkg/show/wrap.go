package show

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// text appends s indented by showIndent, its newlines kept, each line
// wrapped at spaces to the width, control characters escaped.
func (p *Layout) text(s string) { p.wrapAll(s, showIndent) }

func (p *Layout) wrapAll(s string, indent int) {
	width := max(p.width-indent, 20)
	s = Escape(s)
	for {
		line, rest, more := strings.Cut(s, "\n")
		p.wrap(line, indent, width)
		if !more {
			return
		}
		s = rest
	}
}

// wrap appends one line of text at indent, broken at spaces into lines of
// at most width columns (a word longer than that is broken where it must
// be).
func (p *Layout) wrap(line string, ind, width int) {
	indent := func() {
		for range ind {
			p.b = append(p.b, ' ')
		}
	}
	if line == "" {
		p.b = append(p.b, '\n')
		return
	}
	indent()
	col := 0
	for len(line) > 0 {
		// a run of spaces, then a word
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		w := sp
		for w < len(line) && line[w] != ' ' {
			w++
		}
		spaces, word := line[:sp], line[sp:w]
		line = line[w:]
		ww := textWidth(word)
		if col > 0 && col+len(spaces)+ww > width {
			// the word goes to a line of its own; the spaces before it go
			p.b = append(p.b, '\n')
			indent()
			col, spaces = 0, ""
		}
		p.b = append(p.b, spaces...)
		col += len(spaces)
		for ww > width-col && word != "" {
			// too long for any line: break it where the width ends
			i, c := 0, 0
			for i < len(word) {
				r, size := utf8.DecodeRuneInString(word[i:])
				rw := runewidth.RuneWidth(r)
				if col+c+rw > width && (col > 0 || c > 0) {
					break
				}
				c += rw
				i += size
			}
			p.b = append(p.b, word[:i]...)
			p.b = append(p.b, '\n')
			indent()
			word, col = word[i:], 0
			ww = textWidth(word)
		}
		p.b = append(p.b, word...)
		col += ww
	}
	p.b = append(p.b, '\n')
}

// textWidth is the columns s takes at a terminal: its length when ASCII,
// else the sum of its runes' widths (East Asian wide runes take two,
// combining marks none).
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			w := i
			for _, r := range s[i:] {
				w += runewidth.RuneWidth(r)
			}
			return w
		}
	}
	return len(s)
}
