package importer

// Chat-app exports: conversations.json (a JSON array of conversations),
// alone or inside the export's .zip, read one conversation at a time.

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// matchExport: the export's conversations.json, or the .zip holding it.
func matchExport(p string) bool {
	b := path.Base(strings.ReplaceAll(p, "\\", "/"))
	return b == "conversations.json" || strings.HasSuffix(b, ".zip")
}

// eachConversation calls fn with each element of the conversations array.
func eachConversation(src *Source, fn func(raw json.RawMessage) error) error {
	r := src.Reader()
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
		rc, err := found.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		r = rc
	}
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return inputErr(1, "", "not a JSON array of conversations: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return inputErr(1, "", "not a JSON array of conversations")
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return inputErr(0, fmt.Sprintf("[%d]", i), "the file ends inside a conversation")
			}
			return inputErr(0, fmt.Sprintf("[%d]", i), "%v", err)
		}
		if err := fn(raw); err != nil {
			return err
		}
	}
	return nil
}

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
