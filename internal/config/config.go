// Package config holds convo's configuration precedence (flag > CONVO_* >
// config file) in what needs no flag library: where the config file and the
// default store are, which flags only the command line may set, and how a
// usage error names where a flag's value came from. cmd applies it with
// cobra and viper, which only cmd imports.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/convo-cli/convo/internal/exitcode"
)

// File is the config file to read: --config (flag), else CONVO_CONFIG,
// else $XDG_CONFIG_HOME/convo/config.yaml. explicit says one was named,
// so that its absence is an error rather than no config at all.
func File(flag string, getenv func(string) string) (path string, explicit bool) {
	if flag != "" {
		return flag, true
	}
	if path = getenv("CONVO_CONFIG"); path != "" {
		return path, true
	}
	return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "convo", "config.yaml"), false
}

// DefaultDB is the store without --db or CONVO_DB:
// $XDG_DATA_HOME/convo/convo.db.
func DefaultDB() string {
	return filepath.Join(xdgDir("XDG_DATA_HOME", filepath.Join(".local", "share")), "convo", "convo.db")
}

// xdgDir is the XDG directory env names, else fallback under the home
// directory (or fallback itself, relative, without one).
func xdgDir(env, fallback string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fallback
	}
	return filepath.Join(home, fallback)
}

// commandLineOnly are the flags a value in the environment or the config
// file must not set: left there, it would consent to a deletion (--yes),
// turn every pure transform into a write (-c) or cut every read (--limit).
var commandLineOnly = map[string]bool{"yes": true, "conversation": true, "limit": true}

// CommandLineOnly says whether flag name is read from the command line only.
func CommandLineOnly(name string) bool { return commandLineOnly[name] }

// EnvName is the variable that sets flag name: CONVO_<NAME>, dashes as
// underscores.
func EnvName(name string) string {
	return "CONVO_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Source says where flag name's value was found, the environment winning
// over the config file (as viper reads them); file is the file read.
func Source(name, file string, getenv func(string) string) string {
	if env := EnvName(name); getenv(env) != "" {
		return "environment variable " + env
	}
	return "config file " + file
}

// UnknownKeys are the top-level names among keys (a config file's, dotted
// as viper lists them) that known does not hold, each once, in the order
// first seen: a misspelt key would otherwise be ignored without a word.
func UnknownKeys(keys []string, known map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, key := range keys {
		top, _, _ := strings.Cut(key, ".")
		if !known[top] && !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	return out
}

// NameSource names where a flag's value came from in a usage error about
// it found after the value was set (a range check: "--keep-last -3: want 0
// or more turns"), when sources (flag name to Source) says the environment
// or the config file gave it: the person reading it looks for the value
// where it is. Any other error is returned as it is.
func NameSource(err error, sources map[string]string) error {
	var ue *exitcode.UsageError
	if !errors.As(err, &ue) || len(sources) == 0 {
		return err
	}
	msg := ue.Error()
	name, ok := strings.CutPrefix(msg, "--")
	if !ok {
		return err
	}
	if i := strings.IndexAny(name, " :="); i >= 0 {
		name = name[:i]
	}
	source, ok := sources[name]
	if !ok || strings.Contains(msg, source) {
		return err
	}
	return &exitcode.UsageError{Err: fmt.Errorf("%w (--%s was set by %s)", ue.Err, name, source)}
}
