package importer

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gptConv is a small ChatGPT conversation of id id, its title title.
func gptConv(id, title string) string {
	return fmt.Sprintf(`{"id":%q,"title":%q,"current_node":"m2","mapping":{"root":{"id":"root","parent":null,"children":["m1"]},`+
		`"m1":{"id":"m1","parent":"root","children":["m2"],"message":{"id":"m1","author":{"role":"user"},"create_time":1767225601.5,"content":{"content_type":"text","parts":["Hi"]},"recipient":"all"}},`+
		`"m2":{"id":"m2","parent":"m1","children":[],"message":{"id":"m2","author":{"role":"assistant"},"create_time":1767225602.5,"content":{"content_type":"text","parts":["Hello"]},"recipient":"all","metadata":{}}}}}`, id, title)
}

// writeZip writes conversations.json holding body into a zip at p.
func writeZip(t *testing.T, p string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestZipReadOnce: an export read from its zip is read as the plain file
// is, each byte once, however much whitespace lies between its values and
// however small the reads of the zip entry: the memory a read of a zip
// holding a 16 MiB run of whitespace takes is bounded by the buffer and
// one conversation, not the run (a decoder that re-scans the whitespace
// after each small read keeps the run in its buffer: 64 MiB took 71 s).
// Counted in bytes allocated, no clock.
func TestZipReadOnce(t *testing.T) {
	var body strings.Builder
	body.WriteString("[")
	rng := rand.New(rand.NewSource(1))
	noise := make([]byte, 2000)
	for i := range 200 {
		if i > 0 {
			body.WriteString(",")
		}
		if i == 100 {
			body.WriteString(strings.Repeat(" ", 16<<20)) // one long run of whitespace
		}
		rng.Read(noise) // (the zip's ratio stays under 1:200)
		body.WriteString(gptConv(fmt.Sprintf("conv-%03d", i), base64.StdEncoding.EncodeToString(noise)))
	}
	body.WriteString("]")
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain", "conversations.json")
	_ = os.MkdirAll(filepath.Dir(plain), 0o755)
	if err := os.WriteFile(plain, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	zp := filepath.Join(dir, "export.zip")
	writeZip(t, zp, []byte(body.String()))
	for _, p := range []string{plain, zp} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		src := &Source{Path: p, R: f, Size: fi.Size(), notes: &Notes{}}
		n := 0
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err = eachConversation(src, func(json.RawMessage) error { n++; return nil })
		runtime.ReadMemStats(&after)
		f.Close()
		if err != nil || n != 200 {
			t.Fatalf("%s: %d conversations, %v", p, n, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Fatalf("%s: reading it allocated %d MiB: the whitespace is held, not skipped as it comes", p, got>>20)
		}
	}
	// And the import reads every conversation of both.
	for _, p := range []string{plain, zp} {
		im, _, err := run(t, openStore(t), "chatgpt", Options{}, p)
		if err != nil || im.Tally.Sessions != 200 {
			t.Fatalf("%s: %v, %+v", p, err, im.Tally)
		}
	}
}

// TestExportBounded: a conversation larger than the bound is refused by
// name and the rest imported; a zip entry compressed past 1:200 is
// refused.
func TestExportBounded(t *testing.T) {
	defer func(n int) { maxConversationBytes = n }(maxConversationBytes)
	maxConversationBytes = 1 << 20
	body := "[" + gptConv("small-1", "a") + "," + gptConv("huge-1", strings.Repeat("t", 2<<20)) + "," + gptConv("small-2", "b") + "]"
	dir := t.TempDir()
	p := filepath.Join(dir, "export.zip")
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "conversations.json", Method: zip.Store})
	_, _ = w.Write([]byte(body))
	_ = zw.Close()
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	im, warned, err := run(t, s, "chatgpt", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if im.Tally.Sessions != 2 || im.Tally.Lost == 0 || !strings.Contains(strings.Join(warned, "\n"), `[1] ("huge-1")`) {
		t.Fatalf("tally %+v, warned %q: want huge-1 refused by name, the two others imported", im.Tally, warned)
	}
	// 64 MiB of whitespace deflates past 1:200: refused before it is read.
	bomb := filepath.Join(dir, "bomb.zip")
	writeZip(t, bomb, []byte("["+strings.Repeat(" ", 8<<20)+"]"))
	_, _, err = run(t, openStore(t), "chatgpt", Options{}, bomb)
	if err == nil || !strings.Contains(err.Error(), "1:200") {
		t.Fatalf("err = %v, want the ratio refused", err)
	}
}
