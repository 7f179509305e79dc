package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/cmd"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script with what convo prints")

// TestMain lets the test binary act as the convo command: testscript puts it
// on PATH as "convo", so scripts and the process tests run the real CLI.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"convo": func() { os.Exit(cmd.Main()) },
	})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			// Every script gets its own store and no user config.
			env.Setenv("CONVO_DB", env.WorkDir+"/convo.db")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			return nil
		},
	})
}
