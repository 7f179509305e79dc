package importer

// Chat-app exports: conversations.json (a JSON array of conversations),
// alone or inside the export's .zip, read one conversation at a time.

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxConversationBytes bounds one conversation of an export (its JSON).
var maxConversationBytes = 64 << 20

// matchExport: the export's conversations.json, or the .zip holding it.
func matchExport(p string) bool {
	b := path.Base(strings.ReplaceAll(p, "\\", "/"))
	return b == "conversations.json" || strings.HasSuffix(b, ".zip")
}

// maxZipRatio bounds how much a zip entry may expand (a zip bomb).
const maxZipRatio = 200

// eachConversation calls fn with each element of the conversations array,
// read once through a buffer (whitespace skipped as it comes, whatever the
// reads of a zip entry return), one element in memory at a time: one
// larger than maxConversationBytes is refused by name and skipped.
func eachConversation(src *Source, fn func(raw json.RawMessage) error) error {
	var r io.Reader = &counted{r: src.Reader(), src: src}
	if strings.HasSuffix(src.Path, ".zip") || isZip(src) {
		zr, err := zip.NewReader(src.R, src.Size)
		if err != nil {
			return inputErr(0, "", "not a zip archive: %v", err)
		}
		var found *zip.File
		for _, f := range zr.File {
			if path.Base(f.Name) == "conversations.json" {
				found = f
				break
			}
		}
		if found == nil {
			return inputErr(0, "", "the archive holds no conversations.json")
		}
		if u, c := found.UncompressedSize64, found.CompressedSize64; u > 1<<20 && u/max(c, 1) >= maxZipRatio {
			return inputErr(0, found.Name, "expands %d bytes to %d, past 1:%d: refused", c, u, maxZipRatio)
		}
		rc, err := found.Open()
		if err != nil {
			return inputErr(0, found.Name, "%v", err)
		}
		defer rc.Close()
		r = &declared{r: rc, left: int64(found.UncompressedSize64), name: found.Name, src: src}
	}
	a := jsonArray{br: bufio.NewReaderSize(r, 256<<10)}
	c, err := a.skipWS()
	if err != nil || c != '[' {
		return inputErr(1, "", "not a JSON array of conversations")
	}
	if c, err = a.skipWS(); err == nil && c == ']' {
		return nil
	}
	_ = a.br.UnreadByte()
	for i := 0; ; i++ {
		raw, over, err := a.value(maxConversationBytes)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return inputErr(0, fmt.Sprintf("[%d]", i), "the file ends inside a conversation")
		}
		if err != nil {
			return err
		}
		if over {
			src.Skip(inputErr(0, fmt.Sprintf("[%d] (%q)", i, exportID(raw)), "a conversation of more than %d MiB of JSON: refused, the others imported", maxConversationBytes>>20))
		} else {
			if !utf8.Valid(raw) {
				src.Note("invalid UTF-8 (replaced by U+FFFD)")
			}
			if err := fn(raw); err != nil {
				return err
			}
		}
		c, err := a.skipWS()
		switch {
		case err != nil:
			return inputErr(0, fmt.Sprintf("[%d]", i), "the file ends after a conversation, without the array's ]")
		case c == ']':
			return nil
		case c != ',':
			return inputErr(0, fmt.Sprintf("[%d]", i), "%q after a conversation, want , or ]", c)
		}
	}
}

// declared reads a zip entry, refusing more bytes than its header says.
// The progress it reports is the share of the entry read, of the zip's
// size.
type declared struct {
	r          io.Reader
	left, read int64
	name       string
	src        *Source
}

func (d *declared) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.left -= int64(n)
	if d.left < 0 {
		return 0, inputErr(0, d.name, "larger than the zip declares: refused")
	}
	d.read += int64(n)
	if total := d.read + d.left; d.src != nil && total > 0 {
		d.src.reached(int64(float64(d.src.Size) * float64(d.read) / float64(total)))
	}
	return n, err
}

// counted reads src from its start, telling src how far it got (the
// progress bar moves as a file read whole is read).
type counted struct {
	r   io.Reader
	src *Source
	off int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.off += int64(n)
	c.src.reached(c.off)
	return n, err
}

// jsonArray reads the values of a JSON array from a buffer, each byte once.
type jsonArray struct {
	br  *bufio.Reader
	buf []byte
}

// skipWS reads past whitespace and returns the byte after it.
func (a *jsonArray) skipWS() (byte, error) {
	for {
		c, err := a.br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

// value reads the next value, up to limit bytes of it (over: it was
// longer, read past, and only its head returned).
func (a *jsonArray) value(limit int) (raw []byte, over bool, err error) {
	a.buf = a.buf[:0]
	c, err := a.skipWS()
	if err != nil {
		return nil, false, err
	}
	keep := func(c byte) {
		if len(a.buf) < limit {
			a.buf = append(a.buf, c)
		} else {
			over = true
		}
	}
	depth, inStr, esc := 0, false, false
	for {
		keep(c)
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
		if depth == 0 && !inStr {
			if c == '}' || c == ']' || c == '"' && len(a.buf) > 1 {
				return a.buf, over, nil
			}
			// a scalar: ends before a delimiter
			if n, _ := a.br.Peek(1); len(n) == 1 && (n[0] == ',' || n[0] == ']' || n[0] == ' ' || n[0] == '\n' || n[0] == '\t' || n[0] == '\r') {
				return a.buf, over, nil
			}
		}
		if depth < 0 {
			return nil, false, inputErr(0, "", "a ] or } without its opening")
		}
		if c, err = a.br.ReadByte(); err != nil {
			return nil, false, err
		}
	}
}

// exportID is the id a conversation's head names, for a message.
func exportID(head []byte) string {
	if m := exportIDRe().FindSubmatch(head[:min(len(head), 1<<16)]); m != nil {
		return string(m[1])
	}
	return "?"
}

var exportIDRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"(?:id|uuid|conversation_id)"\s*:\s*"([^"\\]{1,128})"`)
})

func isZip(src *Source) bool {
	var b [4]byte
	n, _ := src.R.ReadAt(b[:], 0)
	return n == 4 && string(b[:]) == "PK\x03\x04"
}

// fixedWalk walks entries made up front (a conversation of an export).
func fixedWalk(entries func() ([]Entry, error)) func(int, func(*Entry) error) error {
	return func(skip int, fn func(*Entry) error) error {
		es, err := entries()
		if err != nil {
			return err
		}
		for i := range es {
			e := es[i]
			if i < skip {
				e.Records = nil
			}
			if err := fn(&e); err != nil {
				return err
			}
		}
		return nil
	}
}
