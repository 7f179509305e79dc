package importer

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/store"
)

var update = flag.Bool("update", false, "rewrite the golden records in testdata/golden")

// openStore opens a SQLite store of the test's own.
func openStore(t testing.TB) store.Store { return sqlitetest.Open(t) }

// run imports paths in format into s and returns the importer and what
// it warned.
func run(t testing.TB, s store.Store, format string, opt Options, paths ...string) (*Importer, []string, error) {
	t.Helper()
	f, ok := Lookup(format)
	if !ok {
		t.Fatalf("no format %q", format)
	}
	var warned []string
	opt.Format = f
	opt.Warn = func(m string) { warned = append(warned, m) }
	im, err := New(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(f, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if err = im.ImportFile(context.Background(), p); err != nil {
			break
		}
	}
	return im, warned, err
}

// dumpAll is every conversation's records as stored, one per line, under a
// heading per conversation, with dir (where the fixtures lie) made "DIR".
func dumpAll(t testing.TB, s store.Store, dir string) string {
	t.Helper()
	ctx := context.Background()
	var b bytes.Buffer
	var convs []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error { convs = append(convs, c.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range convs {
		b.WriteString("# " + c + "\n")
		if err := s.Read(ctx, c, store.ReadOptions{}, func(r store.Row) error {
			b.Write(r.Body)
			b.WriteByte('\n')
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(dir)
	return stable(strings.ReplaceAll(b.String(), abs, "DIR"))
}

// stable masks what an import takes from the clock: the creation time of
// an entry that gives none (now). (A placeholder's id is derived from the
// record after it: rule 2.)
func stable(s string) string {
	now := time.Now().UnixMilli()
	s = regexp.MustCompile(`"creation":(\d{13})`).ReplaceAllStringFunc(s, func(m string) string {
		ms, _ := strconv.ParseInt(m[len(`"creation":`):], 10, 64)
		if d := now - ms; d >= 0 && d < 24*3600*1000 {
			return `"creation":NOW`
		}
		return m
	})
	return s
}

// checkGolden compares got with testdata/golden/name, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	golden.Check(t, path, []byte(got), *update)
}

func itoa(i int) string { return strconv.Itoa(i) }

// copyTree copies the fixtures under src to a fresh directory.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
