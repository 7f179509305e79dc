package cmd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

func TestSchemaFlags(t *testing.T) {
	for _, tt := range []struct {
		sub     func(*Factory, func(context.Context, *schemaOptions) error) *cobra.Command
		args    []string
		file    string // what runF sees; "" with errText
		errText string
	}{
		{sub: newCmdSchemaSet, args: []string{"-c", "demo", "city.json"}, file: "city.json"},
		{sub: newCmdSchemaSet, args: []string{"-c", "demo"}, errText: "want one FILE argument, got 0"},
		{sub: newCmdSchemaSet, args: []string{"-c", "demo", "a", "b"}, errText: "want one FILE argument, got 2"},
		{sub: newCmdSchemaSet, args: []string{"city.json"}, errText: "missing -c"},
		{sub: newCmdSchemaUnset, args: []string{"-c", "demo"}},
		{sub: newCmdSchemaUnset, args: []string{"-c", "demo", "extra"}, errText: `unexpected argument "extra"`},
		{sub: newCmdSchemaShow, args: []string{"-c", "demo"}},
		{sub: newCmdSchemaShow, args: []string{}, errText: "missing -c"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *schemaOptions
			cmd := tt.sub(f, func(_ context.Context, o *schemaOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if tt.errText == "" && (err != nil || got == nil || got.conversation != "demo" || got.file != tt.file) ||
				tt.errText != "" && (exitcode.Of(err) != exitcode.Usage || err == nil || !strings.Contains(err.Error(), tt.errText)) {
				t.Fatalf("%v (exit %d), options %+v; want %q", err, exitcode.Of(err), got, tt.errText)
			}
		})
	}
}

// convo schema set|show|unset, and ask's hidden aliases doing the same.
func TestSchemaRun(t *testing.T) {
	f, out, errOut := testFactory(t, "")
	ctx := context.Background()
	schema := writeTemp(t, "city.schema.json", `{"type":"object","properties":{"city":{"type":"string"}}}`)
	titled := writeTemp(t, "x.json", cmdCitySchema)
	bad := writeTemp(t, "bad.json", `{"type":12}`)
	stored := func() (store.ConversationSchema, bool) {
		t.Helper()
		s, _ := f.Store(ctx)
		sc, ok, err := s.Schema(ctx, "demo")
		if err != nil {
			t.Fatal(err)
		}
		return sc, ok
	}

	if err := runCmd(t, f, "schema", "set", "-c", "demo", schema); err != nil || out.Len() != 0 {
		t.Fatalf("set: %v, stdout %q", err, out)
	}
	if sc, ok := stored(); !ok || sc.Name != "city" {
		t.Fatalf("stored %+v %v", sc, ok)
	}
	if err := runCmd(t, f, "schema", "show", "-c", "demo"); err != nil || out.String() != `{"type":"object","properties":{"city":{"type":"string"}}}`+"\n" {
		t.Fatalf("show: %v %q", err, out)
	}
	out.Reset()
	if err := runCmd(t, f, "schema", "set", "-c", "demo", bad); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), bad+": not a valid JSON Schema") {
		t.Fatalf("set bad: %v", err)
	}
	if err := runCmd(t, f, "schema", "set", "-c", "demo", "/nonexistent.json"); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "open /nonexistent.json") {
		t.Fatalf("set missing: %v", err)
	}
	if sc, _ := stored(); sc.Name != "city" {
		t.Fatalf("a failed set replaced the schema: %+v", sc)
	}
	if err := runCmd(t, f, "schema", "unset", "-c", "demo"); err != nil || errOut.Len() != 0 {
		t.Fatalf("unset: %v %q", err, errOut)
	}
	if _, ok := stored(); ok {
		t.Fatal("unset left the schema")
	}
	if err := runCmd(t, f, "schema", "unset", "-c", "demo"); err != nil || !strings.Contains(errOut.String(), `conversation "demo" had no schema`) {
		t.Fatalf("unset again: %v %q", err, errOut)
	}
	errOut.Reset()
	err := runCmd(t, f, "schema", "show", "-c", "demo")
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound || !strings.Contains(err.Error(), `conversation "demo" has no schema`) {
		t.Fatalf("show none: %v (exit %d)", err, exitcode.Of(err))
	}

	for _, args := range [][]string{{"schema"}, {"schema", "bogus"}} {
		if err := runCmd(t, f, args...); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "want set, unset or show") && !strings.Contains(err.Error(), "needs a command") {
			t.Errorf("%v: %v (exit %d)", args, err, exitcode.Of(err))
		}
	}

	// The hidden aliases of one release.
	if err := runCmd(t, f, "ask", "-c", "demo", "--set-schema", titled); err != nil {
		t.Fatal(err)
	}
	if sc, ok := stored(); !ok || sc.Name != "City" {
		t.Fatalf("ask --set-schema stored %+v %v", sc, ok)
	}
	if err := runCmd(t, f, "ask", "-c", "demo", "--set-schema", bad); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "not a valid JSON Schema") {
		t.Fatalf("ask --set-schema bad: %v", err)
	}
	if err := runCmd(t, f, "ask", "-c", "demo", "--unset-schema"); err != nil {
		t.Fatal(err)
	}
	if _, ok := stored(); ok {
		t.Fatal("ask --unset-schema left the schema")
	}
	if err := runCmd(t, f, "ask", "--help"); err != nil || strings.Contains(out.String(), "set-schema") || !strings.Contains(out.String(), "convo schema set") {
		t.Errorf("ask --help shows the hidden aliases or lacks schema set: %v", err)
	}
}
