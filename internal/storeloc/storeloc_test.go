package storeloc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{ // want "" for none
		{"convo.db", ""},
		{"file:convo.db", ""},
		{"postgres://u@db/convo", ""},
		{"file:", "--db file: names no file"},
		{"mysql://db/x", `--db: unsupported store "mysql:"`},
		{"host=db password=pw-s3cret", "a PostgreSQL keyword/value string is not a store"},
	} {
		err := Check("--db", tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || exitcode.Of(err) != exitcode.Usage):
			t.Errorf("%s: %v, want a usage error with %q", tc.spec, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: the password shows: %v", tc.spec, err)
		}
	}
	if err := CheckGiven("--to", ""); err == nil || !strings.Contains(err.Error(), "missing --to STORE: "+Schemes) {
		t.Errorf("CheckGiven(\"\") = %v", err)
	}
}

func TestPathAndKinds(t *testing.T) {
	for _, spec := range []string{"x.db", "file:x.db", "file://x.db"} {
		if Path(spec) != "x.db" {
			t.Errorf("Path(%q) = %q", spec, Path(spec))
		}
	}
	if !IsPostgres("postgresql://h/x") || IsPostgres("x.db") {
		t.Error("IsPostgres")
	}
	if !IsPGKeywords("dbname=x user=u") || IsPGKeywords("a=b.db") {
		t.Error("IsPGKeywords")
	}
}

// The same store under another spelling is the same; PostgreSQL URLs are
// compared as written; a file not there is another store.
func TestSame(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{db, "file:" + db, "file://" + db} {
		if !Same(db, to) {
			t.Errorf("Same(%q, %q) = false", db, to)
		}
	}
	if Same(db, filepath.Join(dir, "x.db")) {
		t.Error("a target that does not exist is another store")
	}
	if Same("postgres://h/a", "postgres://h/b") || !Same("postgres://h/a", "postgres://h/a") {
		t.Error("Same compares PostgreSQL URLs")
	}
}
