package domains

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// project is the repository a session works in: Go packages under
// internal/, named by nouns that also name its types and functions.
type project struct {
	repo, env string
	nouns     []string
}

var projects = []project{
	{"acme/httpx", "HTTPX", []string{"header", "frame", "router", "conn"}},
	{"northwind/ledger", "LEDGER", []string{"invoice", "ledger", "currency", "export"}},
	{"orbit/rated", "RATED", []string{"bucket", "limiter", "window", "store"}},
	{"fernhill/csvkit", "CSVKIT", []string{"reader", "schema", "column", "writer"}},
	{"bluejay/webhooks", "HOOKS", []string{"signature", "retry", "queue", "payload"}},
	{"tidepool/cachet", "CACHET", []string{"cache", "eviction", "shard", "stats"}},
}

var (
	verbs    = []string{"parse", "validate", "encode", "decode", "flush", "merge", "split", "normalize", "load", "apply"}
	subtests = []string{"empty_input", "trailing_space", "unicode_key", "oversized_value", "nil_reader", "duplicate_key",
		"zero_timeout", "crlf_line_endings", "negative_offset", "max_int", "single_byte", "nested_quotes"}
	envWords = []string{"MAX_BYTES", "TIMEOUT_MS", "STRICT_MODE", "DSN", "CACHE_DIR", "LOG_LEVEL", "TLS_CERT", "WORKERS"}
	deps     = []string{"golang.org/x/net", "golang.org/x/sync", "github.com/google/go-cmp", "github.com/spf13/cobra",
		"github.com/jackc/pgx/v5", "go.uber.org/zap", "github.com/prometheus/client_golang", "gopkg.in/yaml.v3"}
)

// goFuncs are the bodies read_file shows: {fn} a function, {Fn} a method,
// {T} the package's type, {noun} the package.
var goFuncs = []string{
	"// {fn} reads one {noun} per line from r.\nfunc {fn}(r io.Reader) ([]{T}, error) {\n\tvar out []{T}\n\tsc := bufio.NewScanner(r)\n\tfor sc.Scan() {\n\t\tline := strings.TrimSpace(sc.Text())\n\t\tif line == \"\" {\n\t\t\tcontinue\n\t\t}\n\t\tv, err := {fn}Line(line)\n\t\tif err != nil {\n\t\t\treturn nil, fmt.Errorf(\"{noun}: line %d: %w\", len(out)+1, err)\n\t\t}\n\t\tout = append(out, v)\n\t}\n\treturn out, sc.Err()\n}",
	"func {fn}(b []byte) ({T}, error) {\n\ti := bytes.IndexByte(b, ':')\n\tif i < 0 {\n\t\treturn {T}{}, errSyntax\n\t}\n\tkey, val := b[:i], bytes.TrimSpace(b[i+1:])\n\tif len(val) > maxValueBytes {\n\t\treturn {T}{}, fmt.Errorf(\"%w: %d bytes\", errTooLarge, len(val))\n\t}\n\treturn {T}{Key: string(key), Value: string(val)}, nil\n}",
	"// {fn} merges src into dst, keeping the newer entry on conflict.\nfunc {fn}(dst, src map[string]{T}) {\n\tfor k, v := range src {\n\t\tif old, ok := dst[k]; ok && old.Updated.After(v.Updated) {\n\t\t\tcontinue\n\t\t}\n\t\tdst[k] = v\n\t}\n}",
	"func (c *{T}Cache) {Fn}(ctx context.Context, key string) ({T}, bool) {\n\tc.mu.RLock()\n\tdefer c.mu.RUnlock()\n\te, ok := c.items[key]\n\tif !ok || time.Since(e.at) > c.ttl {\n\t\tc.misses.Add(1)\n\t\treturn {T}{}, false\n\t}\n\tc.hits.Add(1)\n\treturn e.val, true\n}",
	"func {fn}(w io.Writer, items []{T}) error {\n\tbw := bufio.NewWriter(w)\n\tfor i, it := range items {\n\t\tif err := it.Validate(); err != nil {\n\t\t\treturn fmt.Errorf(\"item %d: %w\", i, err)\n\t\t}\n\t\tfmt.Fprintf(bw, \"%s\\t%s\\n\", it.Key, it.Value)\n\t}\n\treturn bw.Flush()\n}",
	"// {fn} retries fn with exponential backoff until ctx is done.\nfunc {fn}(ctx context.Context, fn func() error) error {\n\tdelay := 50 * time.Millisecond\n\tfor attempt := 1; ; attempt++ {\n\t\terr := fn()\n\t\tif err == nil || attempt == maxAttempts {\n\t\t\treturn err\n\t\t}\n\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\tcase <-time.After(delay):\n\t\t}\n\t\tdelay *= 2\n\t}\n}",
	"func (h *{T}Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\tv, err := {fn}(r.Body)\n\tif err != nil {\n\t\th.log.Error(\"{noun} rejected\", \"err\", err, \"remote\", r.RemoteAddr)\n\t\thttp.Error(w, err.Error(), http.StatusBadRequest)\n\t\treturn\n\t}\n\tw.Header().Set(\"Content-Type\", \"application/json\")\n\t_ = json.NewEncoder(w).Encode(v)\n}",
}

const goTest = "func {Test}(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\tin      string\n\t\twantErr bool\n\t}{\n{cases}\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\t_, err := {fn}([]byte(tt.in))\n\t\t\tif (err != nil) != tt.wantErr {\n\t\t\t\tt.Fatalf(\"{fn}(%q) error = %v, wantErr %v\", tt.in, err, tt.wantErr)\n\t\t\t}\n\t\t})\n\t}\n}"

// session is one coding-agent conversation in a project; focus is the
// package the current task is about.
type session struct {
	*builder
	p             project
	module, focus string
	abbrev        int    // length of the git SHAs it shows
	port          string // where the dev server listens
	branch        string
	fileSeed      uint64
	// pr draws the facts in words, apart from the rest (agent_prose.go);
	// quiet: the user says nothing between tool calls.
	pr    *rand.Rand
	quiet bool
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (s *session) noun() string {
	if s.focus != "" && s.r.IntN(3) > 0 {
		return s.focus
	}
	return pick(s.r, s.p.nouns)
}

func (s *session) fn() string { return pick(s.r, verbs) + title(s.noun()) }

func (s *session) file() string {
	n := s.noun()
	switch s.r.IntN(3) {
	case 0:
		return "internal/" + n + "/" + n + ".go"
	case 1:
		return "internal/" + n + "/" + n + "_test.go"
	}
	return "internal/" + n + "/" + pick(s.r, verbs[:5]) + ".go"
}

func (s *session) test() string {
	return "Test" + title(pick(s.r, verbs)) + title(s.noun()) + "/" + pick(s.r, subtests)
}

func (s *session) sha() string { return hex(s.r, s.abbrev) }

// source is the content of a Go file, the same on every read of it.
func (s *session) source(path string) string {
	h := fnv.New64a()
	h.Write([]byte(path))
	r := rand.New(rand.NewPCG(s.fileSeed, h.Sum64()))
	noun := strings.Split(path, "/")[1]
	src := []string{"package " + noun, "", "import (", "\t\"bufio\"", "\t\"context\"", "\t\"fmt\"", "\t\"io\"", "\t\"strings\"", "\t\"time\"", ")"}
	if strings.HasSuffix(path, "_test.go") {
		src = []string{"package " + noun, "", "import \"testing\""}
	}
	for range between(r, 6, 18) {
		fn := pick(r, verbs) + title(noun) + pick(r, []string{"", "Line", "Value", "All"})
		rp := strings.NewReplacer("{fn}", fn, "{Fn}", title(fn), "{T}", title(noun), "{noun}", noun)
		if strings.HasSuffix(path, "_test.go") {
			var cases strings.Builder
			for _, k := range r.Perm(len(subtests))[:between(r, 3, 8)] {
				fmt.Fprintf(&cases, "\t\t{%q, %q, %v},\n", subtests[k], pick(r, []string{"", " a: b", "k:v\r\n", "\x00"}), r.IntN(2) == 0)
			}
			src = append(src, "", strings.NewReplacer("{Test}", "Test"+title(fn), "{cases}", cases.String()).Replace(rp.Replace(goTest)))
			continue
		}
		src = append(src, "", rp.Replace(pick(r, goFuncs)))
	}
	return numbered(strings.Join(src, "\n"))
}

func numbered(text string) string {
	var sb strings.Builder
	for i, l := range strings.Split(text, "\n") {
		fmt.Fprintf(&sb, "%5d\t%s\n", i+1, l)
	}
	return sb.String()
}

// grepOut lists matches of a function name, with extra lines to include.
func (s *session) grepOut(fn string, extra ...string) string {
	forms := []string{"\tv, err := {fn}(line)", "func {fn}(b []byte) ({T}, error) {", "\treturn {fn}(ctx, key)", "// {fn} is called on the request path.", "\t\t\tgot, err := {fn}([]byte(tt.in))"}
	rp := strings.NewReplacer("{fn}", fn, "{T}", title(s.focus))
	lines := extra
	for range between(s.r, 2, 12) {
		lines = append(lines, fmt.Sprintf("%s:%d:%s", s.file(), between(s.r, 8, 400), rp.Replace(pick(s.r, forms))))
	}
	s.r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return strings.Join(lines, "\n")
}

// testOut is verbose `go test` output for a test whose subtests pass,
// except fail (if set), which fails with the message given.
func (s *session) testOut(top string, fail, msg string) string {
	subs := []string{}
	for _, k := range s.r.Perm(len(subtests))[:between(s.r, 3, 10)] {
		subs = append(subs, top+"/"+subtests[k])
	}
	if fail != "" {
		subs = append(subs, fail)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "=== RUN   %s\n", top)
	for _, t := range subs {
		fmt.Fprintf(&sb, "=== RUN   %s\n", t)
		if t == fail {
			fmt.Fprintf(&sb, "    %s_test.go:%d: %s\n", s.focus, between(s.r, 20, 300), msg)
		}
	}
	verdict := "PASS"
	if fail != "" {
		verdict = "FAIL"
	}
	fmt.Fprintf(&sb, "--- %s: %s (0.%02ds)\n", verdict, top, s.r.IntN(100))
	for _, t := range subs {
		v := "PASS"
		if t == fail {
			v = "FAIL"
		}
		fmt.Fprintf(&sb, "    --- %s: %s (0.00s)\n", v, t)
	}
	if fail != "" {
		fmt.Fprintf(&sb, "FAIL\nFAIL\t%s/internal/%s\t0.%03ds\nFAIL\n", s.module, s.focus, s.r.IntN(1000))
	} else {
		fmt.Fprintf(&sb, "PASS\nok  \t%s/internal/%s\t0.%03ds\n", s.module, s.focus, s.r.IntN(1000))
	}
	return sb.String()
}

// filler is one routine tool call of an agent at work and its result.
func (s *session) filler() (transcript.ToolCall, string, bool) {
	switch s.r.IntN(10) {
	case 0, 1, 2, 3:
		f := s.file()
		return s.newCall("read_file", "path", f), s.source(f), false
	case 4:
		fn := s.fn()
		return s.newCall("grep", "pattern", fn, "path", "internal/"), s.grepOut(fn), false
	case 5:
		f, fn := s.file(), s.fn()
		old := "\tif len(val) > maxValueBytes {"
		if s.r.IntN(6) == 0 {
			return s.newCall("edit_file", "path", f, "old", old, "new", "\tif len(val) >= maxValueBytes {"),
				"Error: old string not found in " + f + "; read the file again before editing.", true
		}
		return s.newCall("edit_file", "path", f, "old", old, "new", "\tif err := "+fn+"(val); err != nil {\n\t\treturn {}, err\n\t}\n"+old),
			"The file " + f + " has been updated (1 replacement).", false
	case 6, 7:
		t := "Test" + title(pick(s.r, verbs)) + title(s.focus)
		return s.newCall("run_tests", "filter", t), s.testOut(t, "", ""), false
	}
	var out strings.Builder
	cmd := pick(s.r, []string{"go build ./...", "go vet ./...", "git status --short", "git diff --stat", "go test ./...", "go list -m all"})
	switch cmd {
	case "git status --short", "git diff --stat":
		for range between(s.r, 1, 5) {
			fmt.Fprintf(&out, " M %s | %d %s\n", s.file(), between(s.r, 1, 40), strings.Repeat("+", between(s.r, 1, 12)))
		}
	case "go test ./...":
		for _, n := range s.p.nouns {
			fmt.Fprintf(&out, "ok  \t%s/internal/%s\t(cached)\n", s.module, n)
		}
	case "go list -m all":
		out.WriteString(s.module + "\n")
		for _, d := range deps {
			fmt.Fprintf(&out, "%s v0.%d.%d\n", d, between(s.r, 1, 60), s.r.IntN(10))
		}
	default:
		out.WriteString("(no output)")
	}
	return s.newCall("bash", "command", cmd), out.String(), false
}

// Agent returns n coding-agent sessions with tool calls and results,
// deterministic for a seed. Shapes cycle: a marathon (two prompts, the
// first followed by 110-160 tool calls, over 80,000 tokens), several short
// prompts, one or two short tasks, and two or three medium tasks.
func Agent(seed int64, n int) []Conversation {
	out := make([]Conversation, n)
	for i := range out {
		out[i] = agentSession(seed, i)
	}
	return out
}

func agentSession(seed int64, i int) Conversation {
	return agentSessionFrom(stream(seed, 2, i), stream(seed, 4, i), i, fmt.Sprintf("agent-%d-%02d", seed, i))
}

// agentSessionFrom is session i (its shape follows i) drawn from r, its
// facts in words from pr.
func agentSessionFrom(r, pr *rand.Rand, i int, name string) Conversation {
	s := &session{builder: &builder{r: r}, p: pick(r, projects), abbrev: between(r, 7, 12), fileSeed: r.Uint64()}
	s.module = "github.com/" + s.p.repo
	s.port = fmt.Sprint(between(r, 10000, 39999))
	s.pr, s.quiet = pr, i%4 == 0
	switch i % 4 {
	case 0:
		s.task(between(r, 110, 160), between(r, 9, 13), 85000)
		s.task(between(r, 15, 40), between(r, 2, 4), 0)
	case 1:
		for range between(r, 3, 6) {
			s.task(between(r, 5, 25), between(r, 1, 3), 0)
		}
	case 2:
		for range between(r, 1, 2) {
			s.task(between(r, 6, 20), between(r, 3, 5), 0)
		}
	default:
		for range between(r, 2, 3) {
			s.task(between(r, 20, 60), between(r, 3, 6), 0)
		}
	}
	return s.finish(name)
}

// task appends one user prompt and the agent's work on it: at least calls
// tool calls (and minTokens of session), discoveries among them, and a
// commit whose SHA is the last identifier.
func (s *session) task(calls, discoveries, minTokens int) {
	r := s.r
	s.focus = pick(r, s.p.nouns)
	f, fn := "internal/"+s.focus+"/"+pick(r, verbs[:5])+".go", pick(r, verbs)+title(s.focus)
	rp := strings.NewReplacer("{fn}", fn, "{file}", f, "{pkg}", "./internal/"+s.focus, "{noun}", s.focus)
	type fact struct {
		l, x string
		says []string
	}
	var mine []fact // said in this task, some repeated in its summary

	prompt := []string{rp.Replace(pick(r, tasks))}
	if len(s.msgs) > 0 {
		prompt[0] = pick(r, followUps) + prompt[0]
	}
	var asked []*afact
	for range between(r, 1, 3) {
		a := s.unused(prompted, asked)
		asked = append(asked, a)
		if l, x, ok := s.fact(*a); ok {
			if a.kind == "branch" {
				s.branch = x
			}
			prompt = append(prompt, fill(pick(r, a.asks), "{L}", l, "{X}", x))
			mine = append(mine, fact{l, x, a.says})
		}
	}
	if rule := pick(r, rules); rule != "" {
		prompt = append(prompt, rule)
	}
	words := s.taskFacts(calls, s.quiet, len(s.msgs) == 0)
	for _, x := range words.prompt {
		prompt = slices.Insert(prompt, s.pr.IntN(len(prompt))+1, x)
	}
	s.say(transcript.RoleUser, strings.Join(prompt, " "))

	// due[k]: the k-th tool call of the task shows a discovery.
	due := make([]bool, calls)
	for _, k := range r.Perm(calls)[:min(discoveries, calls)] {
		due[k] = true
	}
	var notes []string
	if r.IntN(5) < 3 { // the agent settles on a reproduction command
		s.reproduce(fn)
	}
	for made := 0; made < calls || size(s.msgs) < minTokens; {
		named := notes // said in this message, shown by the last results
		notes = nil
		var batch []transcript.ToolCall
		var outs []string
		var errs []bool
		for range pick(r, []int{1, 1, 1, 1, 2, 3}) {
			var c transcript.ToolCall
			var out string
			var isErr, shown bool
			if made < calls && due[made] {
				d := s.unused(discovered, nil)
				if l, x, ok := s.fact(*d); ok {
					c, out, isErr = d.show(s, x)
					notes = append(notes, rp.Replace(fill(pick(r, d.says), "{L}", l, "{X}", x)))
					mine = append(mine, fact{l, x, recap})
					shown = true
				}
			}
			if !shown {
				c, out, isErr = s.filler()
			}
			batch, outs, errs = append(batch, c), append(outs, out), append(errs, isErr)
			made++
		}
		var args map[string]string // {file} is the path the first call works on
		_ = json.Unmarshal([]byte(batch[0].Arguments), &args)
		text := rp.Replace(strings.ReplaceAll(pick(r, working[batch[0].Name]), "{file}", args["path"]))
		s.call(words.working(made, strings.TrimSpace(strings.Join(named, " ")+" "+text)), batch...)
		for k, c := range batch {
			s.result(c, outs[k], errs[k])
		}
		if words.interjectAt >= 0 && made >= words.interjectAt {
			s.interjection(&words)
		}
	}

	// The commit closes the task; the summary names what it found.
	if s.branch == "" {
		s.branch = "main"
	}
	l, x, _ := s.fact(afact{kind: "sha", labels: []string{"fix commit"}, gen: (*session).sha})
	c := s.newCall("bash", "command", "git commit -am '"+s.focus+": fix "+fn+"'")
	s.call(pick(r, []string{"Committing.", ""}), c)
	s.result(c, fmt.Sprintf("[%s %s] %s: fix %s\n 2 files changed, %d insertions(+), %d deletions(-)", s.branch, x, s.focus, fn, between(r, 3, 60), between(r, 1, 20)), false)
	summary := append(notes, rp.Replace(pick(r, done)), fill("The {L} is {X} on {B}.", "{L}", l, "{X}", x, "{B}", s.branch))
	for _, k := range r.Perm(len(mine))[:min(len(mine), between(r, 0, 3))] {
		summary = append(summary, fill(pick(r, mine[k].says), "{L}", mine[k].l, "{X}", mine[k].x))
	}
	summary = append(summary, words.recap...)
	s.say(transcript.RoleAssistant, strings.Join(summary, " "))
}

// reproduce: the agent settles on a reproduction command and runs it; the
// test fails in fn.
func (s *session) reproduce(fn string) {
	r := s.r
	x, _, ok := s.fresh(func() (string, string) {
		return fmt.Sprintf("go test %s -run '^%s$' ./internal/%s/", pick(r, []string{"-race", "-count=1", "-race -count=3", "-v -count=1"}),
			"Test"+title(pick(r, verbs))+title(s.focus), s.focus), ""
	})
	if ok {
		l := s.label([]string{"reproduction command", "repro command"})
		s.ask(l, x, "command")
		c := s.newCall("bash", "command", x)
		s.call(fill(pick(r, []string{"I'll use this as the {L}: `{X}`.", "The {L} is `{X}`; it fails every time."}), "{L}", l, "{X}", x), c)
		s.result(c, s.testOut("Test"+title(s.focus), s.test(), "unexpected error: "+fn+" returned a zero value"), false)
	}
}
