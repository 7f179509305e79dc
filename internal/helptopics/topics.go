// Package helptopics holds convo's help topics, `convo help exit-codes`
// and `convo help environment`, and the tables behind them, which
// cmd/genman also writes into convo(1) as EXIT STATUS and ENVIRONMENT.
package helptopics

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/format"
)

// Entry is one row of a help topic: a name (an exit status, a
// variable) and what it means.
type Entry struct{ Name, Text string }

// Section is a titled group of entries; Title "" for the first.
type Section struct {
	Title   string
	Entries []Entry
}

// Topic is a help topic: `convo help NAME` prints it, and ManSection is
// its section in convo(1).
type Topic struct {
	Name, Short, ManSection string
	Intro                   string
	Sections                []Section
	Outro                   string
}

// exitStatuses is the one table of what convo's exit statuses mean, with
// the codes internal/exitcode returns. docs/spec.md (section 6) says the same, word
// for word less its backquotes (TestHelpExitCodesMatchSpec).
var exitStatuses = []struct {
	codes []int
	text  string
}{
	{[]int{exitcode.OK}, "success; also a command whose change committed but whose output could not be delivered (it says so on stderr), so that a retrying script never stores a change twice"},
	{[]int{exitcode.Failure}, "a runtime failure (I/O, store, provider, a conflict with another writer); also summarize --batch-in when it skipped a result (changed, errored, expired), and export --to otlp+http:// when the receiver rejected spans of a batch it accepted (a partial success: the cursor moved past them, since sending them again would be rejected again)"},
	{[]int{exitcode.Usage}, "a usage error (unknown flag, missing -c, bad flag value, bad config value, a --db or --to that names no convo store: another program's database, a malformed URL); the message ends by pointing at the command's --help"},
	{[]int{exitcode.Input}, "invalid input (bad JSON, unknown role or key, schema violation, a record over the size limit, a merge past it): the message names the line and field"},
	{[]int{exitcode.NotFound}, "not found (no such conversation, or no store at all): the message names the store"},
	{[]int{128 + int(syscall.SIGHUP), 128 + int(syscall.SIGINT), 128 + int(syscall.SIGTERM)}, "stopped by SIGHUP (a closed terminal), SIGINT, SIGTERM before the change committed: nothing of it was written, and the message says what was (summarize --all, summarize --batch-in, copy --all: the conversations done before; import: the chunks committed, each with its cursor). A signal that arrives after the commit is exit 0, and the message says what was stored (terminated after storing 2000 records): a script must not retry it"},
	{[]int{exitcode.BrokenPipe}, "stdout closed before anything was stored, as a shell expects of a pipe; also an incremental export whose reader stopped before reading everything, which says on stderr that nothing was marked as sent"},
}

// All returns convo's help topics.
func All() []Topic {
	var codes []Entry
	for _, s := range exitStatuses {
		names := make([]string, len(s.codes))
		for i, c := range s.codes {
			names[i] = strconv.Itoa(c)
		}
		codes = append(codes, Entry{strings.Join(names, ", "), s.text})
	}
	return []Topic{
		{
			Name: "exit-codes", Short: "What convo's exit statuses mean", ManSection: "EXIT STATUS",
			Intro:    "convo's exit status says what happened; its message, on stderr as \"convo: ...\", says why. Data goes to stdout. The status comes from the error's type, never from its text.",
			Sections: []Section{{Entries: codes}},
			Outro:    "A command that fails writes nothing to the store: every change is one transaction.",
		},
		{
			Name: "environment", Short: "The environment variables convo reads", ManSection: "ENVIRONMENT",
			Intro:    "Every flag can also be set as CONVO_<FLAG> or in the config file (key = the flag's name), but --yes, -c/--conversation and --limit, which are read from the command line only; a flag on the command line wins over the environment, which wins over the file. An empty variable counts as unset.",
			Sections: environment(),
		},
	}
}

// environment is the environment topic's table. The providers' variables
// come from the provider registry (pkg/format), which pkg/llm reads them by.
func environment() []Section {
	providers := Section{Title: "Providers (ask, summarize --summarizer; also keys of the config file)"}
	type use struct {
		what, def, note string
		names           []string
	}
	var order []string
	uses := map[string]*use{}
	add := func(env, what, name, def, note string) {
		if env == "" {
			return
		}
		if uses[env] == nil {
			uses[env] = &use{what: what, def: def, note: note}
			order = append(order, env)
		}
		uses[env].names = append(uses[env].names, name)
	}
	for _, p := range format.Providers(0) {
		note := ""
		if p.Name == "bedrock" {
			note = "; without it, requests are signed with the AWS credential chain's"
		}
		add(p.KeyEnv, "the API key", p.Name, "", note)
		add(p.BaseURLEnv, "the endpoint root", p.Name, p.BaseURL, "")
	}
	for _, env := range order {
		u := uses[env]
		text := u.what + " of " + strings.Join(u.names, " and ")
		if u.def != "" {
			text += " (default " + u.def + ")"
		}
		text += u.note
		providers.Entries = append(providers.Entries, Entry{env, text})
	}
	providers.Entries = append(providers.Entries, Entry{"AWS_PROFILE, AWS_REGION, AWS_ACCESS_KEY_ID, ...",
		"the AWS credential chain and region, for bedrock and export --to dynamodb:// (AWS_ENDPOINT_URL_DYNAMODB or --endpoint-url for a local DynamoDB)"})
	return []Section{
		{Title: "The store and settings", Entries: []Entry{
			{"CONVO_DB", "the store, as --db: a path, file:PATH or postgres://... (default $XDG_DATA_HOME/convo/convo.db)"},
			{"CONVO_CONFIG", "the config file, as --config (default $XDG_CONFIG_HOME/convo/config.yaml)"},
			{"CONVO_<FLAG>", "any flag, upper case, dashes as underscores: CONVO_LOG_LEVEL=debug, CONVO_DB_MAX_CONNS=8"},
			{"XDG_DATA_HOME", "where the default store lives (default ~/.local/share)"},
			{"XDG_CONFIG_HOME", "where the default config file lives (default ~/.config)"},
		}},
		providers,
		{Title: "PostgreSQL", Entries: []Entry{
			{"PGPASSWORD", "the password, when the URL has none; never shown in a message or log"},
			{"PGCONNECT_TIMEOUT", "seconds to wait for a connection (default 10; 0 waits for ever), unless the URL says connect_timeout"},
			{"PGHOST, PGUSER, PGSSLMODE, ...", "libpq's other variables fill what the URL leaves out"},
		}},
		{Title: "OpenTelemetry (export --format otel and --to otlp, live spans)", Entries: []Entry{
			{"OTEL_SERVICE_NAME", "the resource's service.name (default convo)"},
			{"OTEL_EXPORTER_OTLP_ENDPOINT", "the receiver's root (/v1/traces appended), for --to otlp; set, ask and summarize send the span of each call"},
			{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "the receiver's traces URL, used as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT"},
			{"OTEL_EXPORTER_OTLP_HEADERS", "key=value,... sent with every request (percent-decoded); never shown"},
			{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf (default) or http/json"},
			{"CONVO_OTEL_CONTENT", "1: live spans carry the messages, as export --otel-content"},
		}},
		{Title: "Output", Entries: []Entry{
			{"NO_COLOR", "set and not empty: show prints no colour, even at a terminal"},
			{"TERM", "dumb: show prints no colour"},
		}},
		{Title: "Tuning and tests", Entries: []Entry{
			{"GOMEMLIMIT", "the Go heap's soft limit; unset, summarize of a stored conversation sets 160 MiB"},
			{"CONVO_CPUPROFILE", "a file to write a CPU profile of the run to"},
			{"CONVO_RETRY_BASE_DELAY, CONVO_RETRY_MAX_DELAY", "a provider's retry backoff: the first ceiling and the cap on any wait, Retry-After included (Go durations)"},
			{"CONVO_DELIVERY_GRACE", "how long a pipe's reader that read everything has to show it stopped early (Go duration, default 200ms)"},
		}},
	}
}

// Text is the topic for a terminal, wrapped at width columns.
func (t Topic) Text(width int) string {
	var b strings.Builder
	b.WriteString(wrapText(t.Intro, width, "", ""))
	for _, s := range t.Sections {
		b.WriteString("\n")
		if s.Title != "" {
			b.WriteString(s.Title + ":\n")
		}
		for _, e := range s.Entries {
			b.WriteString(entryText(e, width))
		}
	}
	if t.Outro != "" {
		b.WriteString("\n" + wrapText(t.Outro, width, "", ""))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// entryText is one entry: its name, then its text indented beside it,
// or under it when the name is long.
func entryText(e Entry, width int) string {
	const col = 10
	name := "  " + e.Name
	if len(name) < col-1 {
		return wrapText(e.Text, width, name+strings.Repeat(" ", col-len(name)), strings.Repeat(" ", col))
	}
	return name + "\n" + wrapText(e.Text, width, strings.Repeat(" ", col), strings.Repeat(" ", col))
}

// wrapText breaks s at spaces into lines of at most width columns, the
// first starting with first, the others with indent.
func wrapText(s string, width int, first, indent string) string {
	var b strings.Builder
	line := first
	bare := true
	for _, w := range strings.Fields(s) {
		if !bare && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line, bare = indent, true
		}
		if !bare {
			line += " "
		}
		line += w
		bare = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
