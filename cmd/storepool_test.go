package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store/postgres"
)

// TestDBMaxConnsRefused: a --db-max-conns under 2 is a usage error wherever
// it comes from, naming where.
func TestDBMaxConnsRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--db-max-conns", "1", "list"}, `invalid argument "1" for "--db-max-conns" flag: want 2 or more`},
		{"0", []string{"list"}, `--db-max-conns "0" from environment variable CONVO_DB_MAX_CONNS: want 2 or more`},
		{"many", []string{"list"}, `--db-max-conns "many" from environment variable CONVO_DB_MAX_CONNS: want a whole number`},
	} {
		t.Setenv("CONVO_DB_MAX_CONNS", tc.env)
		io, _, errOut := iostreams.Test("")
		if code := Run(context.Background(), append([]string{"--db", t.TempDir() + "/convo.db"}, tc.args...), io); code != exitcode.Usage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v (env %q): exit %d, stderr %q; want 2 and %q", tc.args, tc.env, code, errOut, tc.want)
		}
	}
}

// TestDBMaxConns: a PostgreSQL store's pool holds at most --db-max-conns
// connections, postgres.DefaultMaxConns when unset, whatever -j.
func TestDBMaxConns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := pgtest.Schema(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"append", "-q", "-c", "x", "hi"}, postgres.DefaultMaxConns},
		{[]string{"--db-max-conns", "3", "append", "-q", "-c", "x", "hi"}, 3},
	} {
		f, _, errOut := testFactory(t, "")
		f.db = db
		if err := runCmd(t, f, tc.args...); err != nil {
			t.Fatalf("%v: %v: %s", tc.args, err, errOut)
		}
		if got := f.store.DB().Stats().MaxOpenConnections; got != tc.want {
			t.Errorf("%v: at most %d connections, want %d", tc.args, got, tc.want)
		}
	}
}
