package format

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVercelToolsExample runs examples/vercel-tools.test.mjs against the AI
// SDK on what render writes for --provider vercel --tools: the tools as
// written are refused by generateText ("schema is not a function"), and
// taken once examples/vercel-tools.mjs wraps each schema in jsonSchema().
// It needs node and a node_modules holding `ai` (and its `ai/test` mocks):
// CONVO_TEST_AI_MODULES=/path/to/node_modules (npm install ai in a scratch
// directory; convo vendors none of it). Without them it is skipped.
func TestVercelToolsExample(t *testing.T) {
	modules := os.Getenv("CONVO_TEST_AI_MODULES")
	node, err := exec.LookPath("node")
	if modules == "" || err != nil {
		t.Skip("set CONVO_TEST_AI_MODULES to a node_modules holding ai, with node on PATH")
	}
	tools, err := ParseTools([]byte(`[{"name":"get_current_weather","description":"Get the current weather in a given location",
		"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := render(t, "vercel", `{"role":"user","content":"Weather in Boston?"}`, Request{Body: true, Model: "m", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"vercel-tools.mjs", "vercel-tools.test.mjs"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, filepath.Join(dir, "vercel-tools.test.mjs"), body)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.HasPrefix(stdout.String(), "ok:") {
		t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "schema is not a function") {
		t.Errorf("the unwrapped tools failed otherwise: %s", stdout.String())
	}
}
