package facts

import (
	"slices"
	"testing"
)

// TestErrorLines: the lines of a tool result that report an error are
// found wherever they sit, each once, the first ErrorsPerResult of them;
// a result that reports none has none, unless it is an error result.
func TestErrorLines(t *testing.T) {
	tests := []struct {
		name, text string
		isError    bool
		want       []string
	}{
		{"go test", "=== RUN   TestParse\n=== RUN   TestParse/empty\n    parse_test.go:41: got error \"EOF\", want nil\n--- FAIL: TestParse (0.00s)\n    --- FAIL: TestParse/empty (0.00s)\nFAIL\nFAIL\tgithub.com/a/b\t0.01s\nFAIL",
			false, []string{`parse_test.go:41: got error "EOF", want nil`, "--- FAIL: TestParse (0.00s)", "--- FAIL: TestParse/empty (0.00s)"}},
		{"four failing tests", "--- FAIL: TestA (0.00s)\n    a_test.go:10: got 1, want 2\n--- FAIL: TestB (0.00s)\n    b_test.go:20: unexpected error: decodeB returned a zero value\n--- FAIL: TestC (0.00s)\n    c_test.go:30: got <nil> error, want errSyntax\n--- FAIL: TestD (0.00s)\n    d_test.go:40: got 3, want 4\nFAIL",
			false, []string{"a_test.go:10: got 1, want 2", "b_test.go:20: unexpected error: decodeB returned a zero value", "c_test.go:30: got <nil> error, want errSyntax"}},
		{"compiler", "# github.com/a/b\n./main.go:12:5: undefined: parseA\n./main.go:12:5: undefined: parseA\n./util.go:3:2: \"os\" imported and not used",
			false, []string{"./main.go:12:5: undefined: parseA", `./util.go:3:2: "os" imported and not used`}},
		{"recovered", "--- FAIL: TestX (0.00s)\npanic: assignment to entry in nil map [recovered]\n\tpanic: assignment to entry in nil map\n", false,
			[]string{"--- FAIL: TestX (0.00s)", "panic: assignment to entry in nil map [recovered]"}},
		{"panic late", "starting server\nlistening on :8080\nrequest 1 ok\n\npanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV]\ngoroutine 1 [running]:\nmain.main()",
			false, []string{"panic: runtime error: invalid memory address or nil pointer dereference"}},
		{"python", "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nValueError: invalid literal for int() with base 10: 'x'",
			false, []string{"ValueError: invalid literal for int() with base 10: 'x'"}},
		{"java", "Exception in thread \"main\" java.lang.IllegalStateException: closed\n\tat a.B.c(B.java:10)",
			false, []string{"Exception in thread \"main\" java.lang.IllegalStateException: closed"}},
		{"git", "fatal: not a git repository (or any of the parent directories): .git", false,
			[]string{"fatal: not a git repository (or any of the parent directories): .git"}},
		{"prefixed", "npm ERR! code E404\ngo: error: module not found\nerror[E0308]: mismatched types", false,
			[]string{"go: error: module not found", "error[E0308]: mismatched types"}},
		{"assertion", "test_x.py F\nE   AssertionError: expected 3 but got 4\nE   assert 3 == 4", false,
			[]string{"E   AssertionError: expected 3 but got 4"}},
		{"error result", "old string not found in internal/x.go", true, []string{"old string not found in internal/x.go"}},
		{"Error:", "Error: old string not found in f.go; read the file again.", false, []string{"Error: old string not found in f.go; read the file again."}},
		// Not errors.
		{"grep", "internal/x/x.go:96:\treturn parseError(ctx, key)\ninternal/x/y.go:12:func parseError(b []byte) error {", false, nil},
		{"source", "package x\n\nfunc handleError(err error) error {\n\treturn fmt.Errorf(\"x: %w\", err)\n}", false, nil},
		{"pass", "=== RUN   TestErrorPath\n--- PASS: TestErrorPath (0.00s)\nPASS\nok  \tgithub.com/a/b\t0.01s", false, nil},
	}
	for _, tt := range tests {
		got := ErrorLines(tt.text, tt.isError)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: ErrorLines = %q, want %q", tt.name, got, tt.want)
		}
	}
}
