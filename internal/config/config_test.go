package config

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
)

func TestFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if p, explicit := File("", getenv); p != filepath.Join("/xdg", "convo", "config.yaml") || explicit {
		t.Errorf("default: %q %v", p, explicit)
	}
	env["CONVO_CONFIG"] = "/env.yaml"
	if p, explicit := File("", getenv); p != "/env.yaml" || !explicit {
		t.Errorf("CONVO_CONFIG: %q %v", p, explicit)
	}
	// The flag wins over the environment.
	if p, explicit := File("/flag.yaml", getenv); p != "/flag.yaml" || !explicit {
		t.Errorf("--config: %q %v", p, explicit)
	}
}

func TestDefaultDB(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	if got := DefaultDB(); got != filepath.Join("/data", "convo", "convo.db") {
		t.Errorf("DefaultDB() = %q", got)
	}
}

func TestSource(t *testing.T) {
	env := map[string]string{"CONVO_KEEP_LAST": "3"}
	getenv := func(k string) string { return env[k] }
	if got := Source("keep-last", "c.yaml", getenv); got != "environment variable CONVO_KEEP_LAST" {
		t.Errorf("env: %q", got)
	}
	if got := Source("db", "c.yaml", getenv); got != "config file c.yaml" {
		t.Errorf("file: %q", got)
	}
	if !CommandLineOnly("yes") || CommandLineOnly("db") {
		t.Error("CommandLineOnly: --yes only, not --db")
	}
}

func TestNameSource(t *testing.T) {
	sources := map[string]string{"keep-last": "config file c.yaml"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{exitcode.Usagef("--keep-last -3: want 0 or more turns"), "--keep-last -3: want 0 or more turns (--keep-last was set by config file c.yaml)"},
		{exitcode.Usagef("--keep-last from config file c.yaml: bad"), "--keep-last from config file c.yaml: bad"}, // names it already
		{exitcode.Usagef("--model: missing"), "--model: missing"},                                                 // set on the command line
		{errors.New("--keep-last -3"), "--keep-last -3"},                                                          // not a usage error
	} {
		got := NameSource(tc.err, sources)
		if got.Error() != tc.want {
			t.Errorf("NameSource(%q) = %q, want %q", tc.err, got, tc.want)
		}
		if exitcode.Of(got) != exitcode.Of(tc.err) {
			t.Errorf("NameSource(%q) changed the exit code", tc.err)
		}
	}
}

// The unknown top-level keys, each once, in the order first seen; a known
// key's nested settings are its own.
func TestUnknownKeys(t *testing.T) {
	known := map[string]bool{"db": true, "keep-last": true, "openai_api_key": true}
	for _, tc := range []struct {
		keys []string
		want []string
	}{
		{nil, nil},
		{[]string{"db", "keep-last", "openai_api_key"}, nil},
		{[]string{"db", "kep-last", "db.nested", "colour.theme", "kep-last", "colour.size"}, []string{"kep-last", "colour"}},
	} {
		if got := UnknownKeys(tc.keys, known); !slices.Equal(got, tc.want) {
			t.Errorf("UnknownKeys(%q) = %q, want %q", tc.keys, got, tc.want)
		}
	}
}
