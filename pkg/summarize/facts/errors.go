package facts

import (
	"regexp"
	"strings"
	"sync"
)

// ErrorsPerResult bounds the error lines taken of one tool result: the
// first few say what failed (the panic and its message, the first
// diagnostics, the failing test and its assertion); the rest of a long
// log repeats them.
const ErrorsPerResult = 3

// maxErrorLine bounds an error line's bytes: a longer one (a minified
// stack, a JSON blob) keeps its start, cut at a rune, marked with "…".
const maxErrorLine = 240

// ErrorLines returns the lines of a tool result that report an error,
// wherever they sit in it, in order, each once, at most ErrorsPerResult,
// trimmed of their indentation:
//
//   - a panic, an error or a fatal error: "panic:", "error:", "Error:",
//     "ERROR:", "error[E0308]:", "fatal:" (at the start of the line or
//     after a program's name: "go: error: …");
//   - a failing test: "--- FAIL: …", "FAIL\tpkg …", "FAIL: …", "FAILED …";
//   - an exception: a line that opens with a name ending in Error or
//     Exception ("ValueError: …", "java.lang.IllegalStateException: …",
//     "AssertionError"), "Exception in thread …", "Uncaught …"; the
//     "Traceback (most recent call last):" line says nothing of its own, so
//     the exception line that ends the traceback is taken instead;
//   - a compiler or test diagnostic: "file.go:41:12: message" (a place in
//     a file, then a message after ": ", so grep's "file:12:code" is not
//     one);
//   - a failing assertion: "got X, want Y", "expected … but …",
//     "assertion failed".
//
// A result that reports an error (isError) with no such line gives its
// first non-blank line.
func ErrorLines(text string, isError bool) []string {
	// Lines that say what failed (a diagnostic, a panic, an assertion)
	// go before the runner's marks ("--- FAIL: TestX", "FAIL"), which only
	// name the test: of a log with four failing tests, the three kept are
	// their messages, not three headers.
	type found struct {
		line string
		mark bool
	}
	var cands []found
	says := 0
	first := ""
	for at := 0; at < len(text) && says < ErrorsPerResult; {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		line := strings.TrimSpace(text[at:end])
		at = end + 1
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		if !errorLine(line) {
			continue
		}
		line = clipBytes(line, maxErrorLine)
		// A Go panic is printed again with " [recovered]" by the test
		// runner: the same error.
		dup := false
		for _, o := range cands {
			if strings.TrimSuffix(o.line, " [recovered]") == strings.TrimSuffix(line, " [recovered]") {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		mark := failMark(line)
		if !mark {
			says++
		}
		if mark && len(cands)-says >= ErrorsPerResult {
			continue // marks enough to fill in
		}
		cands = append(cands, found{line, mark})
	}
	var out []string
	room := ErrorsPerResult - min(says, ErrorsPerResult)
	for _, c := range cands {
		if !c.mark || room > 0 {
			if c.mark {
				room--
			}
			out = append(out, c.line)
		}
	}
	if len(out) == 0 && isError && first != "" {
		out = append(out, clipBytes(first, maxErrorLine))
	}
	return out
}

// failMark reports whether an error line is a test runner's mark, which
// names a failing test or package but not what failed.
func failMark(line string) bool {
	return strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "FAIL ") ||
		line == "FAIL" || strings.HasPrefix(line, "FAILED")
}

// errorLine reports whether a trimmed line reports an error. A cheap look
// for the bytes every pattern needs comes before the expressions.
func errorLine(line string) bool {
	if strings.IndexByte(line, ':') < 0 && !strings.Contains(line, "FAIL") && !strings.Contains(line, "want") &&
		!strings.Contains(line, "but") && !strings.Contains(line, "Error") && !strings.Contains(line, "Exception") {
		return false
	}
	switch {
	case strings.HasPrefix(line, "Traceback "):
		return false
	case strings.HasPrefix(line, "--- FAIL"), strings.HasPrefix(line, "FAIL\t"), strings.HasPrefix(line, "FAIL "),
		strings.HasPrefix(line, "FAIL:"), strings.HasPrefix(line, "FAILED"), strings.HasPrefix(line, "panic:"),
		strings.HasPrefix(line, "fatal:"), strings.HasPrefix(line, "Exception in thread"), strings.HasPrefix(line, "Uncaught "):
		return true
	}
	return errorRE().MatchString(line)
}

var errorRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		// error: at the start or after a program's name or a level.
		`^(?:[\w./ -]{0,40}: )?(?:error|Error|ERROR|fatal error|fatal|FATAL|panic)(?:\[\w+\])?:(?:\s|$)` +
			// an exception or error class opening the line
			`|^(?:[\w$]+\.)*\w*(?:Error|Exception)\b(?::|$)` +
			// a diagnostic: file:line[:col]: message
			`|^[\w./\\-]*\w\.\w+:\d+(?::\d+)?: \S` +
			// an assertion
			`|\bgot\b.{0,200}\bwant\b|\bexpected\b.{0,200}\bbut\b|\b[Aa]ssertion(?: failed|Error)\b`)
})

// clipBytes cuts s to at most n bytes at a rune boundary, marked "…".
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
