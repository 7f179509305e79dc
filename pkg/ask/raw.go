package ask

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// writeRaw keeps one response body as DIR/<conversation>/<agent>_<time>.json
// (--keep-raw). The body never holds the key (the transport redacts it)
// and no header is written. Both names are escaped to stay one path
// element each; files are private to the user, as the conversation is.
func writeRaw(dir, conv, agent string, now time.Time, body []byte) error {
	sub := filepath.Join(dir, pathElement(conv))
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return err
	}
	base := pathElement(agent) + "_" + now.UTC().Format("20060102T150405.000Z")
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(filepath.Join(sub, name+".json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

// maxElement bounds an escaped name: a file system takes 255 bytes a name
// (NAME_MAX), and a raw file's name adds its time and suffix to the agent.
const maxElement = 200

// pathElement escapes s into one safe file name: no separator, no . or ..,
// at most maxElement bytes. A longer one (a 256-byte conversation id
// escapes to up to 768) keeps its beginning, cut between escapes, and ends
// in ~ and a hash of the whole of s: the same s always gets the same name,
// and different ones different names.
func pathElement(s string) string {
	e := url.PathEscape(s)
	e = strings.ReplaceAll(e, "\\", "%5C")
	e = strings.ReplaceAll(e, ":", "%3A")
	if strings.Trim(e, ".") == "" {
		e = strings.ReplaceAll(e, ".", "%2E")
	}
	if len(e) <= maxElement {
		return e
	}
	sum := sha256.Sum256([]byte(s))
	suffix := "~" + hex.EncodeToString(sum[:8])
	cut := maxElement - len(suffix)
	if i := strings.LastIndexByte(e[:cut], '%'); i >= cut-2 {
		cut = i // not inside %XX
	}
	return e[:cut] + suffix
}
