package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/convo-cli/convo/"

// ourImports returns, per package directory under root (slash-separated,
// relative to the module), the module's own packages it imports: from
// production files, and from all files tests included.
func ourImports(t *testing.T) (prod, all map[string][]string) {
	t.Helper()
	prod, all = map[string][]string{}, map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			own, ok := strings.CutPrefix(ip, module)
			if !ok {
				continue
			}
			if !slices.Contains(all[dir], own) {
				all[dir] = append(all[dir], own)
			}
			if !strings.HasSuffix(p, "_test.go") && !slices.Contains(prod[dir], own) {
				prod[dir] = append(prod[dir], own)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return prod, all
}

// TestImportRules holds the import rules of the architecture
// (docs/architecture.md): the domain imports nothing of ours, steps import
// the domain, adapters never reach the use cases or each other, and nothing
// under pkg/ reaches cmd.
func TestImportRules(t *testing.T) {
	prod, all := ourImports(t)
	if len(all) == 0 {
		t.Fatal("found no imports of our own packages: is the test running at the module root?")
	}
	for _, v := range importViolations(prod, all) {
		t.Error(v)
	}
}

// importViolations lists every import that breaks a rule.
func importViolations(prod, all map[string][]string) []string {
	var bad []string
	// allowed lists, for production code, the packages of ours each may import.
	allowed := map[string][]string{
		"pkg/transcript": nil,
		"pkg/tokens":     {"pkg/transcript", "pkg/tokens/internal/bpe", "pkg/tokens/internal/vocab"},
		// The vocabulary tables: bpe reads them, vocab takes them from
		// tiktoken-go (the generator's and the tests' only), gen writes them.
		"pkg/tokens/internal/bpe":   nil,
		"pkg/tokens/internal/vocab": nil,
		"pkg/tokens/internal/gen":   {"pkg/tokens/internal/bpe", "pkg/tokens/internal/vocab"},
		"pkg/format":                {"pkg/transcript"},
		"pkg/export":                {"pkg/transcript"},
		// The store keeps pkg/export's Cursor, whose --ack token codec
		// lives there beside Run, which moves it.
		"pkg/store": {"pkg/transcript", "pkg/search", "pkg/retry", "pkg/export"},
		"pkg/llm":   {"pkg/transcript", "pkg/format", "pkg/retry"},
		"pkg/retry": nil, // the one retry loop knows nothing of what it retries
		// The OTLP exporter reads records, retries with the store's
		// Backoff and reads Retry-After as pkg/llm does; it knows no
		// use case, no backend and not pkg/export (it fits its Writer).
		"pkg/otel": {"pkg/transcript", "pkg/store", "pkg/llm"},
		// import reads files into the store: the domain and the packages
		// of the store interface it declares (importer.Store, of
		// pkg/store's types), never a backend or a provider.
		"pkg/importer": {"pkg/transcript", "pkg/store"},
		// The search language and tokenizer, one for every backend,
		// know no store.
		"pkg/search": {"pkg/transcript"},
		// The summarizer's parts: the fact finder and the extractive
		// engine never reach the use case (pkg/summarize), and the fact
		// finder never reaches the engine.
		"pkg/summarize/internal/work": {"pkg/transcript"},
		"pkg/summarize/facts":         {"pkg/transcript", "pkg/tokens", "pkg/summarize/internal/work"},
		// span is what the use case and every summarizer share (Input,
		// Output), below both: the use case never imports the engine.
		"pkg/summarize/span":       {"pkg/transcript", "pkg/summarize/facts"},
		"pkg/summarize/extractive": {"pkg/transcript", "pkg/tokens", "pkg/summarize/facts", "pkg/summarize/internal/work", "pkg/summarize/span"},
		"pkg/summarize": {"pkg/transcript", "pkg/tokens", "pkg/llm", "pkg/format", "pkg/store",
			"pkg/summarize/facts", "pkg/summarize/internal/work", "pkg/summarize/span"},
		// ask runs one provider turn: the store's interface and the
		// providers' formats and transports, never a backend.
		"pkg/ask": {"pkg/transcript", "pkg/format", "pkg/llm", "pkg/store", "schemas"},
		// answer makes append --from's records of a parsed response body:
		// the providers' formats and the store's types, never a transport
		// or a backend.
		"pkg/answer": {"pkg/transcript", "pkg/format", "pkg/store"},
		// show lays stored records out for people through the store
		// interface it declares; cmd gives it the terminal's width.
		// search's lines are show's too: the snippet escaped and marked.
		"pkg/show": {"pkg/transcript", "pkg/store", "pkg/search"},
		// The streams know terminals and pipes, nothing of convo's.
		"pkg/iostreams": nil,
		// The one table of exit codes reads the typed errors of the
		// packages whose errors it maps; signals end a command through it.
		"internal/exitcode": {"pkg/transcript", "pkg/format", "pkg/store", "pkg/iostreams"},
		"internal/signals":  {"internal/exitcode"},
		// The help topics' tables: exit statuses and the environment,
		// whose provider variables come from the registry.
		"internal/helptopics": {"internal/exitcode", "pkg/format"},
		"internal/memlimit":   nil, // the Go heap's soft limit, nothing of ours
		// The config precedence that needs no flag library: file paths,
		// command-line-only flags, a usage error naming its value's source.
		"internal/config":  {"internal/exitcode"},
		"internal/logging": {"internal/exitcode"}, // the one logger, from --log-level and --log-format
		// A store location's form: the PostgreSQL backend checks and
		// masks its URLs; nothing is opened here.
		"internal/storeloc":  {"internal/config", "internal/exitcode", "pkg/store/postgres"},
		"internal/buildinfo": nil, // which build: the linker's flags or the go command's stamp
		// What output never shows: a store's passwords, the provider keys
		// (llm's Redactor), on stderr and in the records stored.
		"internal/secrets": {"pkg/transcript", "pkg/llm"},
		// The values of the flags several commands share, read into what
		// the use cases take: ask's Schema, format's Tools, llm's rate.
		"internal/flagvalue": {"internal/exitcode", "pkg/transcript", "pkg/format", "pkg/llm", "pkg/ask"},
		// Building a provider's transport or a summarizer from settings:
		// with cmd, the one place that hands the engine to the use case.
		"internal/providers": {"internal/exitcode", "pkg/format", "pkg/llm", "pkg/tokens",
			"pkg/summarize", "pkg/summarize/extractive"},
	}
	adapters := []string{"pkg/store/sqlite", "pkg/store/postgres", "pkg/dynamo", "pkg/llm"}
	useCases := []string{"cmd", "pkg/ask", "pkg/answer", "pkg/show", "pkg/summarize", "pkg/importer"}
	for dir, imps := range prod {
		for pkg, ok := range allowed {
			// pkg/store's own subpackages (the engine, dialects, conformance
			// suite) may import pkg/store and each other's shared parts.
			inStore := pkg == "pkg/store" && under(dir, pkg)
			if dir != pkg && !inStore {
				continue
			}
			for _, imp := range imps {
				// The conformance suite checks every record it reads against
				// the record schema.
				suite := under(dir, "pkg/store/storetest") && imp == "schemas"
				if !slices.Contains(ok, imp) && !(inStore && imp == "pkg/store") && !(inStore && under(imp, "pkg/store/sqlstore")) && !suite {
					bad = append(bad, fmt.Sprintf("%s imports %s; it may import only %v", dir, imp, ok))
				}
			}
		}
		for _, ad := range adapters {
			if !under(dir, ad) {
				continue
			}
			for _, imp := range imps {
				for _, other := range append(slices.Clone(useCases), adapters...) {
					if under(imp, other) && !under(imp, ad) {
						bad = append(bad, fmt.Sprintf("adapter %s imports %s", dir, imp))
					}
				}
			}
		}
	}
	for dir, imps := range all {
		if !under(dir, "pkg") && !under(dir, "internal") {
			continue
		}
		for _, imp := range imps {
			if under(imp, "cmd") {
				bad = append(bad, fmt.Sprintf("%s imports %s (tests included, nothing under pkg/ imports cmd)", dir, imp))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// Each rule catches a tree that breaks it, and a tree that keeps them passes.
func TestImportViolations(t *testing.T) {
	good := map[string][]string{
		"pkg/transcript":        nil,
		"pkg/format":            {"pkg/transcript"},
		"pkg/llm":               {"pkg/format", "pkg/transcript"},
		"pkg/store/sqlite":      {"pkg/store", "pkg/store/sqlstore", "pkg/transcript"},
		"pkg/summarize":         {"pkg/transcript", "pkg/llm", "pkg/format", "pkg/tokens"},
		"cmd":                   {"pkg/store", "pkg/summarize", "pkg/dynamo"},
		"internal/providertest": {"pkg/format"},
	}
	if v := importViolations(good, good); len(v) > 0 {
		t.Errorf("a tree that keeps the rules: %v", v)
	}
	for _, tt := range []struct {
		name      string
		prod, all map[string][]string
		want      string
	}{
		{"domain imports a step", map[string][]string{"pkg/transcript": {"pkg/format"}}, nil, "pkg/transcript imports pkg/format"},
		{"step imports a step", map[string][]string{"pkg/export": {"pkg/store"}}, nil, "pkg/export imports pkg/store"},
		{"adapter imports a use case", map[string][]string{"pkg/dynamo": {"pkg/summarize"}}, nil, "adapter pkg/dynamo imports pkg/summarize"},
		{"the engine imports the use case", map[string][]string{"pkg/summarize/extractive": {"pkg/summarize"}}, nil, "pkg/summarize/extractive imports pkg/summarize"},
		{"the use case imports the engine", map[string][]string{"pkg/summarize": {"pkg/summarize/extractive"}}, nil, "pkg/summarize imports pkg/summarize/extractive"},
		{"the fact finder imports the engine", map[string][]string{"pkg/summarize/facts": {"pkg/summarize/extractive"}}, nil, "pkg/summarize/facts imports pkg/summarize/extractive"},
		{"search imports the store", map[string][]string{"pkg/search": {"pkg/store"}}, nil, "pkg/search imports pkg/store"},
		{"the importer imports the engine", map[string][]string{"pkg/importer": {"pkg/store/sqlstore"}}, nil, "pkg/importer imports pkg/store/sqlstore"},
		{"the importer imports a backend", map[string][]string{"pkg/importer": {"pkg/store/sqlite"}}, nil, "pkg/importer imports pkg/store/sqlite"},
		{"adapters import each other", map[string][]string{"pkg/store/sqlite": {"pkg/dynamo"}}, nil, "adapter pkg/store/sqlite imports pkg/dynamo"},
		{"a test under pkg imports cmd", nil, map[string][]string{"pkg/dynamo": {"cmd"}}, "pkg/dynamo imports cmd"},
	} {
		v := importViolations(tt.prod, tt.all)
		if len(v) == 0 || !strings.HasPrefix(v[0], tt.want) {
			t.Errorf("%s: got %q, want one starting %q", tt.name, v, tt.want)
		}
	}
}

// The importer takes the store interface it declares (importer.Store: the
// methods it calls), never the whole store.Store: a production file of
// pkg/importer that names store.Store fails.
func TestImporterDeclaresItsStore(t *testing.T) {
	fset, files := productionFiles(t, "pkg/importer")
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Store" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "store" {
					t.Errorf("%s: names store.Store; the importer takes importer.Store, the methods it calls", fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
}

// cmd is wiring: no SQL in it (the backends hold every statement) and no
// database/sql. A string literal of a production file that reads as a
// statement fails.
func TestCmdHoldsNoSQL(t *testing.T) {
	statement := regexp.MustCompile(`(?i)^\s*(SELECT\s.+\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX)\s|PRAGMA\s)`)
	fset, files := productionFiles(t, "cmd")
	for p, f := range files {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"database/sql"` {
				t.Errorf("%s imports database/sql: cmd is wiring; the store's backends hold SQL", p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && statement.MatchString(v) {
					t.Errorf("%s: an SQL statement in cmd: %.60q", fset.Position(lit.Pos()), v)
				}
			}
			return true
		})
	}
}

// cmd is wiring: no provider's wire format in it either. pkg/format holds
// each provider's request and response shapes and pkg/llm its transport,
// so cmd imports no provider SDK and no production file of cmd names a key
// that only a provider's wire format has (in a string or a struct tag).
func TestCmdHoldsNoWireFormat(t *testing.T) {
	sdks := []string{"google.golang.org/genai", "github.com/aws/aws-sdk-go-v2/service/bedrockruntime", "google.golang.org/protobuf"}
	wireKey := regexp.MustCompile(`(^|json:")(choices|finish_reason|stop_reason|candidates|generationConfig|usageMetadata|tool_use|tool_result|function_call|prompt_tokens|completion_tokens|input_tokens|output_tokens|max_tokens|content_block_delta|toolUse|toolResult|inferenceConfig|encrypted_content|previous_response_id|resourceSpans)([",]|$)`)
	fset, files := productionFiles(t, "cmd")
	for p, f := range files {
		for _, imp := range f.Imports {
			for _, sdk := range sdks {
				if path, _ := strconv.Unquote(imp.Path.Value); under(path, sdk) {
					t.Errorf("%s imports %s: a provider's wire format belongs in pkg/format or pkg/llm", p, path)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && wireKey.MatchString(v) {
					t.Errorf("%s: a provider's wire key in cmd: %.60q", fset.Position(lit.Pos()), v)
				}
			}
			return true
		})
	}
}

// productionFiles parses the production files of dir (not its tests), by
// path.
func productionFiles(t *testing.T, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no files in %s (%v): is the test running at the module root?", dir, err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f
	}
	return fset, files
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }
