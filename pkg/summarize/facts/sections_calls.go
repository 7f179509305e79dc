package facts

// What a tool call did, read from its name and arguments, and what its
// result says of it: the Files and Commands sections' entries.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/transcript"
)

// pathKeys are the arguments that name a file.
var pathKeys = []string{"path", "file_path", "filePath", "filename", "file", "notebook_path", "target_file"}

// callOf is what a tool call does: a file's read or write, or a command.
func callOf(tc transcript.ToolCall) call {
	var args map[string]any
	_ = json.Unmarshal([]byte(tc.Arguments), &args)
	name := strings.ToLower(tc.Name)
	// A patch names its files inside (Codex's apply_patch).
	if ms := patchRE().FindAllStringSubmatch(tc.Arguments, 64); len(ms) > 0 {
		var c call
		for _, m := range ms {
			op := map[string]string{"Add": "written", "Update": "edited", "Delete": "deleted"}[m[1]]
			c.files = append(c.files, fileOp{path: strings.Clone(m[2]), op: op})
		}
		return c
	}
	for _, k := range pathKeys {
		p, ok := args[k].(string)
		if !ok || p == "" || len(p) > maxCommandBytes || strings.Contains(p, "\n") {
			continue
		}
		op := fileVerb(name)
		if sub, ok := args["command"].(string); ok && op == "" {
			op = fileVerb(strings.ToLower(sub))
		}
		if op != "" {
			return call{files: []fileOp{{path: strings.Clone(p), op: op}}}
		}
		break
	}
	cmd, shell := commandOf(tc.Name, args, tc.Arguments)
	return call{cmd: cmd, shell: shell}
}

// fileVerb is what a tool (or an editor's command) of that name does to
// a file: read, written, edited, deleted, or "" (not a file's read or
// write: a search, a command).
func fileVerb(name string) string {
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(name, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("grep", "search", "glob", "find", "list", "ls"):
		return ""
	case has("str_replace", "edit", "replace", "patch", "insert", "update", "modify"):
		return "edited"
	case has("write", "create", "save"):
		return "written"
	case has("delete", "remove", "unlink"):
		return "deleted"
	case has("read", "view", "cat", "open", "show"):
		return "read"
	}
	return ""
}

var patchRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\*\*\* (Add|Update|Delete) File: ([^\s"\\]+)`)
})

// commandOf is the command a call runs (its "command", "cmd" or
// "script" argument; a shell's argv is joined, "bash -lc X" is X), or
// else the tool's name and its short arguments (shell false).
func commandOf(name string, args map[string]any, raw string) (cmd string, shell bool) {
	for _, k := range []string{"command", "cmd", "script"} {
		switch v := args[k].(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				return clipBytes(strings.Clone(strings.TrimSpace(v)), maxCommandBytes), true
			}
		case []any:
			var argv []string
			for _, a := range v {
				if s, ok := a.(string); ok {
					argv = append(argv, s)
				}
			}
			if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
				argv = argv[n-1:]
			}
			if len(argv) > 0 {
				return clipBytes(strings.Join(argv, " "), maxCommandBytes), true
			}
		}
	}
	parts := []string{name}
	if values, ok := jsonValues(raw); ok {
		for _, v := range values {
			if len(v.text) <= maxArgument && !strings.Contains(v.text, "\n") && strings.TrimSpace(v.text) != "" {
				parts = append(parts, v.text)
			}
		}
	}
	return clipBytes(strings.Clone(strings.Join(parts, " ")), maxCommandBytes), false
}

// outcome is what a command's output says of how it went: its exit
// status, its passed and failed tests (Go's "--- PASS" / "--- FAIL" and
// package lines, "N passed" / "N failed" of pytest, jest and others), or
// else, of a command run (shell), its first line ("[main 3f9a2c1] fix
// parser"), of another tool the lines it gave: a search's or a file's
// lines are a body, not an outcome.
func outcome(text string, isError, shell bool) string {
	var parts []string
	if m := exitRE().FindStringSubmatch(text); m != nil {
		parts = append(parts, "exit "+m[1])
	}
	pass, fail := 0, 0
	pkgOK, pkgFail := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "--- PASS"):
			pass++
		case strings.HasPrefix(t, "--- FAIL"):
			fail++
		case strings.HasPrefix(line, "ok  \t"):
			pkgOK++
		case strings.HasPrefix(line, "FAIL\t"):
			pkgFail++
		}
	}
	if pass+fail == 0 {
		for _, m := range countRE().FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			if strings.HasPrefix(m[2], "pass") {
				pass += n
			} else {
				fail += n
			}
		}
	}
	if pass+fail > 0 {
		parts = append(parts, fmt.Sprintf("%d passed, %d failed", pass, fail))
	}
	if pkgOK+pkgFail > 0 && pass+fail == 0 {
		parts = append(parts, fmt.Sprintf("packages: %d ok, %d failed", pkgOK, pkgFail))
	}
	if len(parts) == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		first = strings.TrimSpace(first)
		if isError {
			parts = append(parts, "failed")
		}
		switch {
		case first == "":
			parts = append(parts, "no output")
		case shell:
			parts = append(parts, clipBytes(first, maxOutcomeBytes))
		case !isError:
			parts = append(parts, fmt.Sprintf("%d lines", strings.Count(strings.TrimSpace(text), "\n")+1))
		}
	}
	return strings.Clone(strings.Join(parts, "; "))
}

var (
	exitRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:exit(?:ed with)? (?:status|code)|exit code|return ?code|exit_code|exitcode)[:=]? ?(-?\d+)`)
	})
	countRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(\d+) (passed|passing|failed|failing)\b`)
	})
)
