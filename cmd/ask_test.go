package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/providers"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store"
)

const askTestKey = "sk-cmd-test-KEY-0b7d"

// parseAsk parses args as `convo ask` does and returns the options askRun
// would get, or the error.
func parseAsk(t *testing.T, f *Factory, args ...string) (*askOptions, error) {
	t.Helper()
	return parseFlags(t, f, newCmdAsk, args...)
}

func TestAskFlags(t *testing.T) {
	callable := format.NameList(format.CanCall)
	tests := []struct {
		args    []string
		errText string // a substring of the usage error; "" for none
		check   func(*askOptions) bool
	}{
		{args: []string{"-c", "demo", "--provider", "openai", "Hi", "there"}, check: func(o *askOptions) bool {
			return o.model == "gpt-4o-mini" && o.pace == 0 && o.temp == nil && len(o.args) == 2 && o.timeout == 2*time.Minute
		}},
		{args: []string{"-c", "demo", "--provider", "anthropic", "--rate", "10/1s", "--temperature", "0.2", "--max-tokens", "99", "--model", "m", "-"}, check: func(o *askOptions) bool {
			return o.model == "m" && o.pace == 100*time.Millisecond && *o.temp == 0.2 && o.maxTokens == 99 && o.args[0] == "-"
		}},
		{args: []string{"-c", "demo", "--provider", "ollama", "--model", "llama3.2", "--rate", "60/m"}, check: func(o *askOptions) bool { return o.pace == time.Second }},
		{args: []string{"--provider", "openai", "Hi"}, errText: "missing -c/--conversation"},
		{args: []string{"-c", "demo", "Hi"}, errText: "missing --provider (one of " + callable + ")"},
		{args: []string{"-c", "demo", "--provider", "vercel", "Hi"}, errText: `--provider "vercel": want one of ` + callable},
		{args: []string{"-c", "demo", "--provider", "vercel", "Hi"}, errText: `--provider "vercel": want one of ` + callable},
		{args: []string{"-c", "demo", "--provider", "ollama", "Hi"}, errText: "--provider ollama needs --model"},
		{args: []string{"-c", "demo", "--provider", "openai", "--schema", "s.json", "--no-schema"}, errText: "--schema and --no-schema do not go together"},
		{args: []string{"-c", "demo", "--provider", "openai", "--keep-invalid", "--no-schema"}, errText: "--keep-invalid needs a schema"},
		{args: []string{"-c", "demo", "--provider", "openai", "--temperature", "hot"}, errText: `--temperature "hot"`},
		{args: []string{"-c", "demo", "--provider", "openai", "--temperature", "-1"}, errText: `--temperature "-1": want a number of 0 or more`},
		{args: []string{"-c", "demo", "--provider", "openai", "--rate", "10"}, errText: `--rate "10": want N/PERIOD`},
		{args: []string{"-c", "demo", "--provider", "openai", "--rate", "10/0s"}, errText: "bad period"},
		{args: []string{"-c", "demo", "--provider", "openai", "--max-tokens", "-5"}, errText: "--max-tokens -5: want a positive number"},
		{args: []string{"-c", "demo", "--provider", "openai", "--timeout", "0s"}, errText: "--timeout 0s"},
		{args: []string{"-c", "demo", "--provider", "openai", "-", "extra"}, errText: "- (read stdin) goes alone"},
		{args: []string{"-c", "demo", "--provider", "openai", "a\x00b"}, errText: "argument 1 contains a NUL character"},
		{args: []string{"-c", "a\x00b", "--provider", "openai"}, errText: "conversation id contains a NUL"},
		{args: []string{"-c", "demo", "--provider", "openai", "--bogus"}, errText: "unknown flag"},
		{args: []string{"-c", "demo", "--set-schema", "a.json", "--unset-schema"}, errText: "do not go together"},
		{args: []string{"-c", "demo", "--set-schema", "a.json", "Hi"}, errText: "ask nothing: ask in another call"},
		{args: []string{"-c", "demo", "--unset-schema", "--no-schema"}, errText: "ask nothing"},
		{args: []string{"--unset-schema"}, errText: "missing -c"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			o, err := parseAsk(t, f, tt.args...)
			if tt.errText == "" && err != nil || tt.errText != "" && (exitcode.Of(err) != exitcode.Usage || err == nil || !strings.Contains(err.Error(), tt.errText)) {
				t.Fatalf("%v (exit %d), want %q", err, exitcode.Of(err), tt.errText)
			}
			if tt.check != nil && !tt.check(o) {
				t.Errorf("options %+v", o)
			}
		})
	}
}

// askEnv points openai at a fake playing steps, with quick retries.
func askEnv(t *testing.T, steps ...providertest.Step) *providertest.Server {
	t.Helper()
	srv := providertest.Start(providertest.Options{Steps: steps, Key: askTestKey})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", askTestKey)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL("openai"))
	t.Setenv(providers.EnvRetryBaseDelay, "1ms")
	t.Setenv(providers.EnvRetryMaxDelay, "5ms")
	return srv
}

// askTest runs askRun with args (after -c c --provider openai) on f, as
// the command would.
func askTest(t *testing.T, f *Factory, args ...string) error {
	t.Helper()
	o, err := parseAsk(t, f, append([]string{"-c", "c", "--provider", "openai"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return askRun(context.Background(), o)
}

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const cmdCitySchema = `{"title":"City","type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

// TestAskRun: what ask prints, and the exit code of each failure, against
// the fake provider and a real store.
func TestAskRun(t *testing.T) {
	paris := providertest.Step{Answer: &providertest.Answer{Text: "Paris is the capital of France."}}
	weather := providertest.Step{Answer: &providertest.Answer{Calls: []providertest.Call{{ID: "call_abc123", Name: "get_weather", Args: `{"location":"Paris"}`}}}}
	cityOK := providertest.Step{Answer: &providertest.Answer{Text: `{"city":"Paris"}`}}
	cityBad := providertest.Step{Answer: &providertest.Answer{Text: `{"city":75}`}}
	schema := writeTemp(t, "city.schema.json", cmdCitySchema)
	badSchema := writeTemp(t, "bad.schema.json", `{"type":12}`)
	tools := writeTemp(t, "tools.json", `[{"name":"get_weather","parameters":{"type":"object"}}]`)
	badTools := writeTemp(t, "badtools.json", `{"name":1}`)
	prompt := writeTemp(t, "prompt.txt", "Answer in French.\n")
	for _, tc := range []struct {
		name        string
		step        providertest.Step
		stdin       string
		args        []string
		code        int
		stdout      string // exact
		stderr      string // a substring
		stored      int    // records stored
		checkStdout func(string) bool
	}{
		{name: "plain", step: paris, args: []string{"Capital?"}, stdout: "Paris is the capital of France.\n", stored: 2},
		{name: "stdin", step: paris, stdin: "Capital?\n", args: []string{"-"}, stdout: "Paris is the capital of France.\n", stored: 2},
		{name: "stdin empty", step: paris, stdin: "\n", args: []string{"-"}, code: exitcode.Input, stderr: "the message on stdin is empty"},
		{name: "stdin NUL", step: paris, stdin: "a\x00b", args: []string{"-"}, code: exitcode.Input, stderr: "NUL"},
		{name: "json", step: paris, args: []string{"--json", "Capital?"}, stored: 2,
			checkStdout: func(s string) bool {
				return strings.HasPrefix(s, `{"id":"`) && strings.Contains(s, `"role":"assistant","contents":["Paris is the capital of France."]`)
			}},
		{name: "json quiet", step: paris, args: []string{"--json", "Capital?"}, stored: 2, stdout: ""},
		{name: "stream", step: paris, args: []string{"--stream", "Capital?"}, stdout: "Paris is the capital of France.\n", stored: 2},
		{name: "stream json", step: paris, args: []string{"--stream", "--json", "Capital?"}, stderr: "Paris is the capital of France.\n", stored: 2,
			checkStdout: func(s string) bool {
				return strings.Count(s, "\n") == 1 && strings.Contains(s, `"Paris is the capital of France."`)
			}},
		{name: "tool call", step: weather, args: []string{"--tools", tools, "Weather?"}, stdout: "", stderr: `tool call call_abc123: get_weather {"location":"Paris"}`, stored: 2},
		{name: "schema", step: cityOK, args: []string{"--schema", schema, "City?"}, stdout: `{"city":"Paris"}` + "\n", stored: 2},
		{name: "schema mismatch", step: cityBad, args: []string{"--schema", schema, "City?"}, code: exitcode.Input, stderr: "answer: does not match the schema City"},
		{name: "schema mismatch kept", step: cityBad, args: []string{"--schema", schema, "--keep-invalid", "City?"}, code: exitcode.Input,
			stdout: `{"city":75}` + "\n", stderr: "stored anyway (--keep-invalid)", stored: 2},
		{name: "schema missing", step: paris, args: []string{"--schema", "/nonexistent.json", "x"}, code: exitcode.Usage, stderr: "--schema: open /nonexistent.json"},
		{name: "schema invalid", step: paris, args: []string{"--schema", badSchema, "x"}, code: exitcode.Usage, stderr: "not a valid JSON Schema"},
		{name: "tools missing", step: paris, args: []string{"--tools", "/nonexistent.json", "x"}, code: exitcode.Usage, stderr: "--tools: open"},
		{name: "tools invalid", step: paris, args: []string{"--tools", badTools, "x"}, code: exitcode.Usage, stderr: "--tools " + badTools},
		{name: "system file", step: paris, args: []string{"--system", "@" + prompt, "x"}, stdout: "Paris is the capital of France.\n", stored: 2},
		{name: "system missing", step: paris, args: []string{"--system", "@/nonexistent", "x"}, code: exitcode.Usage, stderr: "--system: open"},
		{name: "nothing to ask", step: paris, code: exitcode.Usage, stderr: `nothing to ask: conversation "c" has no message to answer`},
		{name: "provider failure", step: providertest.Step{Status: 500, Error: "down"}, args: []string{"x"}, code: exitcode.Failure, stderr: "after 4 attempts); nothing was stored"},
		{name: "incomplete", step: providertest.Step{Answer: &providertest.Answer{Text: "Once", Finish: "length"}}, args: []string{"x"}, code: exitcode.Failure,
			stderr: "openai answer incomplete: finish reason length; nothing was stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := askEnv(t, tc.step)
			f, out, errOut := testFactory(t, tc.stdin)
			f.quiet = tc.name == "json quiet"
			err := askTest(t, f, tc.args...)
			if code := exitcode.Of(err); code != tc.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.code)
			}
			if err != nil {
				errOut.WriteString(err.Error())
			}
			if tc.checkStdout != nil && !tc.checkStdout(out.String()) || tc.checkStdout == nil && out.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", out, tc.stdout)
			}
			if !strings.Contains(errOut.String(), tc.stderr) || strings.Contains(out.String()+errOut.String(), askTestKey) {
				t.Errorf("stderr %q, want %q", errOut, tc.stderr)
			}
			s, _ := f.Store(context.Background())
			n := 0
			s.Read(context.Background(), "c", store.ReadOptions{}, func(store.Row) error { n++; return nil })
			if n != tc.stored {
				t.Errorf("%d records stored, want %d", n, tc.stored)
			}
			if tc.name == "system file" && !strings.Contains(srv.Requests()[0].Raw, `"content":"Answer in French."`) {
				t.Errorf("request %s", srv.Requests()[0].Raw)
			}
		})
	}
}

// A missing key is a usage error naming the variable, and nothing is sent.
func TestAskRunMissingKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	f, _, _ := testFactory(t, "")
	o, err := parseAsk(t, f, "-c", "c", "--provider", "anthropic", "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := askRun(context.Background(), o); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "no API key (set ANTHROPIC_API_KEY)") {
		t.Fatalf("%v (exit %d)", err, exitcode.Of(err))
	}
}

// --rate takes one slot of the store's limiter per request: askRun wires
// ask.Limit into the transport. The slots are counted in the store, on the
// test factory's fixed clock: three asks at 100/1s leave the next slot
// three intervals on.
func TestAskRunRate(t *testing.T) {
	srv := askEnv(t)
	f, _, _ := testFactory(t, "")
	for range 3 {
		if err := askTest(t, f, "--rate", "100/1s", "Hi"); err != nil {
			t.Fatal(err)
		}
	}
	f.Store(context.Background())
	var next int64
	if err := f.store.DB().QueryRow(`SELECT next FROM rate_limits WHERE key = 'openai/gpt-4o-mini'`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if want := f.Now().Add(30 * time.Millisecond).UnixMicro(); next != want || len(srv.Requests()) != 3 {
		t.Errorf("next slot %d, want %d; %d requests", next, want, len(srv.Requests()))
	}
}

// --keep-raw and --agent name the raw files.
func TestAskRunKeepRaw(t *testing.T) {
	askEnv(t)
	f, _, _ := testFactory(t, "")
	dir := t.TempDir()
	if err := askTest(t, f, "--keep-raw", dir, "--agent", "solver", "Hi"); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "c", "solver_20250416T150343.058Z.json")); len(files) != 1 {
		entries, _ := os.ReadDir(filepath.Join(dir, "c"))
		t.Errorf("raw files %v", entries)
	}

	// An archive that cannot be written is reported; the answer is
	// printed and stored, and the exit is 0.
	file := writeTemp(t, "file", "")
	_, out, errOut := testFactory(t, "")
	f.IO.Out, f.IO.ErrOut = out, errOut
	err := askTest(t, f, "--keep-raw", file, "Again")
	if err != nil || out.String() != "OK.\n" || !strings.Contains(errOut.String(), "convo: --keep-raw: the response body was not kept: ") {
		t.Fatalf("%v: stdout %q, stderr %q", err, out, errOut)
	}
}

// Through Run, as the binary runs: each failure is one "convo: " line on
// stderr and its exit code; a usage error adds the hint.
func TestAskExitCodes(t *testing.T) {
	askEnv(t, providertest.Step{Answer: &providertest.Answer{Text: `{"city":75}`}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	schema := writeTemp(t, "city.schema.json", cmdCitySchema)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"ask", "-c", "c", "Hi"}, exitcode.Usage, "convo: missing --provider (one of openai, openai-responses, anthropic, gemini, bedrock, ollama)\nRun 'convo ask --help' for usage.\n"},
		{[]string{"ask", "-c", "c", "--provider", "openai", "--schema", schema, "Hi"}, exitcode.Input, "convo: answer: does not match the schema City:\n"},
		{[]string{"ask", "-c", "c", "--provider", "openai", "Hi"}, exitcode.OK, ""},
		{[]string{"schema", "show", "-c", "c"}, exitcode.NotFound, `convo: conversation "c" has no schema: not found`},
	} {
		io, out, errOut := iostreams.Test("")
		if code := Run(context.Background(), append([]string{"--db", db}, tc.args...), io); code != tc.code || !strings.HasPrefix(errOut.String(), tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, code, errOut, tc.code, tc.stderr)
		}
		if tc.code == exitcode.OK && out.String() != `{"city":75}`+"\n" {
			t.Errorf("%v: stdout %q", tc.args, out)
		}
	}
}

// The hidden retry settings must be positive durations.
func TestAskRunRetryEnv(t *testing.T) {
	askEnv(t)
	t.Setenv(providers.EnvRetryMaxDelay, "soon")
	f, _, _ := testFactory(t, "")
	if err := askTest(t, f, "x"); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), providers.EnvRetryMaxDelay+`="soon"`) {
		t.Fatalf("%v (exit %d)", err, exitcode.Of(err))
	}
}

// Keys and endpoints may come from the config file (SPEC section 7), in
// lower case there.
func TestAskKeyFromConfig(t *testing.T) {
	srv := askEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	config := writeTemp(t, "config.yaml", "openai_api_key: "+askTestKey+"\nopenai_base_url: "+srv.BaseURL("openai")+"\n")
	io, out, errOut := iostreams.Test("")
	args := []string{"--config", config, "--db", filepath.Join(t.TempDir(), "convo.db"), "ask", "-c", "c", "--provider", "openai", "Hi"}
	if code := Run(context.Background(), args, io); code != exitcode.OK || out.String() != "OK.\n" {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "Bearer [KEY]" {
		t.Errorf("Authorization %q", h)
	}
}
