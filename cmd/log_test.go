package cmd

import (
	"log"
	"os"
	"strings"
	"testing"
)

// A library's lines written with the log package (the Gemini SDK's
// "Error stream idle") reach stderr only as debug lines of convo's logger:
// they were printed as they were, with no "convo:" and no redaction.
func TestLibraryLogIsDebug(t *testing.T) {
	t.Cleanup(func() {
		log.SetOutput(os.Stderr)
		log.SetFlags(log.LstdFlags)
	})
	for _, level := range []string{"warn", "debug"} {
		f, _, errOut := testFactory(t, "")
		if err := runCmd(t, f, "--log-level", level, "list"); err != nil {
			t.Fatal(err)
		}
		log.Printf("Error %v", "stream idle")
		got := errOut.String()
		switch {
		case level == "warn" && strings.Contains(got, "stream idle"):
			t.Errorf("--log-level warn: stderr %q holds the library's line", got)
		case level == "debug" && !strings.Contains(got, `msg="library log" line="Error stream idle"`):
			t.Errorf("--log-level debug: stderr %q, want the library's line as a debug line", got)
		}
	}
}
