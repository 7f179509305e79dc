package main

// Issue 27 (Hardening II), items 10, 15, 16, 18, 27, 28 and 30: what a
// command may do to the store --db names, end to end.

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// files is every file of dir with its bytes.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// sqliteExec runs stmts on the SQLite file at path.
func sqliteExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Item 10: --db on another program's SQLite file is exit 2 naming its
// tables, whatever the command, and the file is left byte for byte: no
// table added, no switch to WAL, no -wal or -shm file.
func TestForeignDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "photos.db")
	sqliteExec(t, db, `CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)`, `CREATE TABLE albums (id INTEGER)`,
		`INSERT INTO photos VALUES (1, 'a.jpg')`)
	before := files(t, dir)
	for _, args := range [][]string{
		{"append", "-c", "a", "hi"}, {"list"}, {"get", "-c", "a"}, {"clear", "-c", "a", "--yes"},
		{"summarize", "--all"}, {"prune", "--older-than", "1d"}, {"export", "--all", "--incremental"},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", db}, args...)...)
		if code != 2 || !strings.Contains(errOut, "not a convo store") || !strings.Contains(errOut, "albums, photos") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the tables", args, code, errOut)
		}
		if !sameFiles(before, files(t, dir)) {
			t.Fatalf("%v changed the other program's database", args)
		}
	}
}

// convoBinary is a copy of the test binary, which runs as convo under that
// name, where any user may run it.
func convoBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "convo")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()+"/") {
			os.Chmod(d, 0o755)
		}
	}
	return bin
}

// Item 15: a store on a read-only file in a read-only directory reads:
// list, get, render and export (without --incremental). Run as an
// unprivileged user when the tests run as root, for whom permissions stop
// no write.
func TestReadOnlyStoreReads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	db := filepath.Join(dir, "convo.db")
	seed(t, db, "c", 4)
	bin := convoBinary(t)
	os.Chmod(db, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	for d := filepath.Dir(dir); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	before := files(t, dir)
	for _, args := range [][]string{
		{"list"}, {"get", "-c", "c"}, {"render", "-c", "c", "--provider", "openai"}, {"export", "-c", "c"}, {"show", "-c", "c"},
		{"search", "turn"}, // the index has not caught up: search reads the records it lacks
	} {
		c := exec.Command(bin, append([]string{"--db", db}, args...)...)
		c.Env = append(os.Environ(), "XDG_CONFIG_HOME=/nonexistent", "HOME=/nonexistent")
		if os.Geteuid() == 0 {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("cannot run as an unprivileged user: %v", err)
		}
		if err != nil || len(out) == 0 {
			t.Errorf("%v on a read-only store: %v, stderr %q, %d bytes out", args, err, stderr.String(), len(out))
		}
		if !strings.Contains(string(out), "turn 3 of c") && args[0] != "list" {
			t.Errorf("%v: the records are not in the output:\n%s", args, out)
		}
	}
	if !sameFiles(before, files(t, dir)) {
		t.Fatal("reading changed the read-only directory")
	}
}

// Item 15, as any user: a command that only reads changes nothing in the
// store, not its journal mode (a store someone put back in rollback mode
// stays there) and not its schema (a store an older convo made is refused
// until a command that writes upgrades it). list alone writes: the token
// figures it keeps, never the journal mode.
func TestReadsChangeNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	seed(t, db, "c", 4)
	sqliteExec(t, db, `PRAGMA journal_mode = DELETE`)
	before := files(t, dir)
	if got := before["convo.db"][18:20]; got != "\x01\x01" {
		t.Fatalf("the store is not in rollback mode: % x", got)
	}
	for _, args := range [][]string{
		{"list"}, {"list", "--json"}, {"get", "-c", "c"}, {"show", "-c", "c"}, {"render", "-c", "c", "--provider", "anthropic"},
		{"export", "-c", "c"}, {"export", "--all", "--format", "dynamodb"}, {"summarize", "-c", "c", "--dry-run", "--keep-last", "1"},
		{"rewind", "-c", "c", "--to", "last-user"}, {"schema", "show", "-c", "c"},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 && !(args[0] == "schema" && code == 4) {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
		after := files(t, dir)
		if args[0] == "list" {
			if len(after) != 1 || after["convo.db"][18:20] != "\x01\x01" {
				t.Fatalf("%v switched the store to WAL", args)
			}
			before = after
			continue
		}
		if !sameFiles(before, after) {
			t.Fatalf("%v changed the store's files", args)
		}
	}

	sqliteExec(t, db, `PRAGMA user_version = 6`)
	before = files(t, dir)
	_, errOut, code := run(t, "", "--db", db, "get", "-c", "c")
	if code != 1 || !strings.Contains(errOut, "older convo") {
		t.Fatalf("get on an older store: exit %d, %q; want 1 saying so", code, errOut)
	}
	if !sameFiles(before, files(t, dir)) {
		t.Fatal("get migrated the store")
	}
}

// Item 16: on a store that does not exist, no command that finds nothing
// to do creates it: naming a conversation is exit 4 saying there is no
// store; over every conversation it is exit 0, nothing done.
func TestMissingStoreNeverCreated(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none", "convo.db")
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"get", "-c", "a"}, 4},
		{[]string{"render", "-c", "a", "--provider", "openai"}, 4},
		{[]string{"clear", "-c", "a", "--yes"}, 4},
		{[]string{"annotate", "-c", "a", "--id", "last", "--aux", "k=1"}, 4},
		{[]string{"fork", "-c", "a", "--to", "b"}, 4},
		{[]string{"rewind", "-c", "a", "--to", "last"}, 4},
		{[]string{"rewind", "-c", "a", "--to", "last", "--yes"}, 4},
		{[]string{"summarize", "-c", "a", "--dry-run"}, 4},
		{[]string{"summarize", "-c", "a"}, 4},
		{[]string{"export", "-c", "a", "--incremental"}, 4},
		{[]string{"summarize", "--all"}, 0},
		{[]string{"summarize", "--all", "--dry-run"}, 0},
		{[]string{"prune", "--older-than", "1d", "--dry-run"}, 0},
		{[]string{"prune", "--keep-summaries"}, 0},
		{[]string{"schema", "unset", "-c", "a"}, 0},
		{[]string{"list"}, 0},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", db}, tt.args...)...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, code, tt.code, errOut)
		}
		if tt.code == 4 && !strings.Contains(errOut, "no such store") {
			t.Errorf("%v: %q does not say there is no store", tt.args, errOut)
		}
		if _, err := os.Stat(filepath.Dir(db)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%v created the store", tt.args)
		}
	}
}

// Item 18: --db "" (an unset shell variable) is a usage error naming the
// flag, never the default store; so is an empty db in the config file.
func TestEmptyDBFlag(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("CONVO_DB", "")
	for _, args := range [][]string{{"--db", "", "append", "-c", "a", "hi"}, {"--db=", "list"}} {
		_, errOut, code := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "--db is empty") {
			t.Errorf("%q: exit %d, %q; want 2 naming --db", args, code, errOut)
		}
	}
	cfg := filepath.Join(home, "config.yaml")
	os.WriteFile(cfg, []byte("db: \"\"\n"), 0o600)
	_, errOut, code := run(t, "", "--config", cfg, "append", "-c", "a", "hi")
	if code != 2 || !strings.Contains(errOut, "--db from config file") {
		t.Errorf("empty db in the config file: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "data")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the default store was created")
	}
}

// Items 27 and 30, without a server: a PostgreSQL URL that does not parse
// is exit 2, a keyword/value string is no file name, and no message holds
// the password.
func TestPostgresLocationsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, spec := range []string{
		"postgres://x:notaport/db",
		"postgres://convo:s3cret@db.example:notaport/convo?password=s3cret2",
		"host=db.example user=convo password=s3cret",
		"host=db.example password='s3 cret'",
	} {
		for _, args := range [][]string{{"list"}, {"append", "-c", "a", "hi"}} {
			_, errOut, code := run(t, "", append([]string{"--db", spec}, args...)...)
			if code != 2 || strings.Contains(errOut, "s3cret") || strings.Contains(errOut, "s3 cret") {
				t.Errorf("--db %q %v: exit %d, %q; want 2 and no password", spec, args, code, errOut)
			}
		}
		_, errOut, code := run(t, "", "--db", filepath.Join(dir, "x.db"), "copy", "--all", "--to", spec)
		if code != 2 || strings.Contains(errOut, "s3cret") || strings.Contains(errOut, "s3 cret") {
			t.Errorf("copy --to %q: exit %d, %q; want 2 and no password", spec, code, errOut)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files made: %v", ents)
	}
}

// withPassword returns the URL with a password as a query parameter (the
// test server trusts every connection, so any works).
func withPassword(t *testing.T, dsn, pw string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("password", pw)
	u.RawQuery = q.Encode()
	return u.String()
}

// tablesIn reports whether the schema dsn's search_path names holds convo's
// tables.
func tablesIn(t *testing.T, dsn string) bool {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok bool
	if err := db.QueryRow(`SELECT to_regclass('convo_migrations') IS NOT NULL OR to_regclass('records') IS NOT NULL`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// Item 30: on an empty PostgreSQL database, no command that reads or finds
// nothing to do creates convo's tables: the store does not exist there.
func TestPostgresReadsCreateNoTables(t *testing.T) {
	pg := freshPostgres(t)
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"list"}, 0}, {[]string{"get", "-c", "a"}, 4}, {[]string{"show", "-c", "a"}, 4},
		{[]string{"export", "--all"}, 0}, {[]string{"clear", "-c", "a", "--yes"}, 4},
		{[]string{"annotate", "-c", "a", "--id", "last", "--aux", "k=1"}, 4}, {[]string{"fork", "-c", "a", "--to", "b"}, 4},
		{[]string{"rewind", "-c", "a", "--to", "last"}, 4}, {[]string{"prune", "--older-than", "1d"}, 0},
		{[]string{"summarize", "-c", "a", "--dry-run"}, 4}, {[]string{"summarize", "--all"}, 0},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", pg}, tt.args...)...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, code, tt.code, errOut)
		}
		if tablesIn(t, pg) {
			t.Fatalf("%v created the tables", tt.args)
		}
	}
	if _, errOut, code := run(t, "", "--db", pg, "append", "-q", "-c", "a", "hi"); code != 0 {
		t.Fatalf("append: %d %s", code, errOut)
	}
	if !tablesIn(t, pg) {
		t.Fatal("append made no tables")
	}
}

// Item 27: a password given as ?password= never shows: not in an error
// naming the store, not in a debug log line, not in copy's summary.
func TestPostgresPasswordNeverShown(t *testing.T) {
	pg := withPassword(t, freshPostgres(t), "pw-s3cret")
	check := func(what, stderr string) {
		t.Helper()
		if strings.Contains(stderr, "pw-s3cret") {
			t.Errorf("%s shows the password:\n%s", what, stderr)
		}
		if !strings.Contains(stderr, "password=xxxxx") {
			t.Errorf("%s does not name the store, masked:\n%s", what, stderr)
		}
	}
	_, errOut, code := run(t, "", "--db", pg, "get", "-c", "a")
	if code != 4 {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	check("an error", errOut)
	run(t, "", "--db", pg, "append", "-q", "-c", "a", "hi")
	_, errOut, _ = run(t, "", "--db", pg, "--log-level", "debug", "list")
	check("a debug log", errOut)
	src := filepath.Join(t.TempDir(), "c.db")
	seed(t, src, "b", 2)
	_, errOut, code = run(t, "", "--db", src, "copy", "--all", "--to", pg)
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	check("copy's summary", errOut)
}
