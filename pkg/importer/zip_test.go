package importer

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestZipAtPlainSpeed: an export read from its zip takes about what the
// plain file takes, however much whitespace it holds between its values.
func TestZipAtPlainSpeed(t *testing.T) {
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
	took := func(p string) time.Duration {
		start := time.Now()
		im, _, err := run(t, openStore(t), "chatgpt", Options{}, p)
		if err != nil || im.Tally.Sessions != 200 {
			t.Fatalf("%s: %v, %+v", p, err, im.Tally)
		}
		return time.Since(start)
	}
	tp, tz := took(plain), took(zp)
	t.Logf("plain %v, zip %v", tp, tz)
	if tz > 3*tp+time.Second {
		t.Fatalf("zip %v, plain %v: want about the same", tz, tp)
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
