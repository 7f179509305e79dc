package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// cc21 writes a session as Claude Code 2.1 does: one content block an
// assistant entry, the calls of one answer chained (A1 -> A2 -> ...,
// one message.id), each tool_result a child of the entry holding its
// call, written when the tool answered; the conversation goes on from
// the result written last.
type cc21 struct {
	session, agent string
	lines          []string
	n              int
	t              time.Time
	calls, results []string // tool_use ids written, answered
}

func newCC21(session, agent string) *cc21 {
	return &cc21{session: session, agent: agent, t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
}

func (g *cc21) add(typ, parent string, msg any) string {
	g.n++
	g.t = g.t.Add(time.Second)
	id := fmt.Sprintf("%s-e%04d", g.session[:8], g.n)
	if g.agent != "" {
		id = fmt.Sprintf("%s-e%04d", g.agent, g.n)
	}
	e := map[string]any{"type": typ, "uuid": id, "sessionId": g.session, "version": "2.1.12",
		"cwd": "/home/dev/app", "gitBranch": "main", "userType": "external",
		"timestamp": g.t.Format("2006-01-02T15:04:05.000Z"), "message": msg, "isSidechain": g.agent != ""}
	if parent != "" {
		e["parentUuid"] = parent
	} else {
		e["parentUuid"] = nil
	}
	if g.agent != "" {
		e["agentId"] = g.agent
	}
	b, _ := json.Marshal(e)
	g.lines = append(g.lines, string(b))
	return id
}

func (g *cc21) user(parent, text string) string {
	return g.add("user", parent, map[string]any{"role": "user", "content": text})
}

func (g *cc21) assistant(parent, msgID string, block map[string]any) string {
	return g.add("assistant", parent, map[string]any{"id": msgID, "type": "message", "role": "assistant",
		"model": "claude-opus-4-5", "content": []any{block}, "stop_reason": nil,
		"usage": map[string]any{"input_tokens": 3, "output_tokens": 7}})
}

func (g *cc21) result(parent, call string) string {
	g.results = append(g.results, call)
	return g.add("user", parent, map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": call, "content": "output of " + call}}})
}

// turn writes one answer of k calls; parallel writes the calls first
// and their results in the order order gives (nil: call order);
// sequential writes call, result, call, result. It returns the entry
// the conversation goes on from.
func (g *cc21) turn(parent, msgID string, thinking bool, k int, parallel bool, order []int) string {
	prev := parent
	if thinking {
		prev = g.assistant(prev, msgID, map[string]any{"type": "thinking", "thinking": "plan " + msgID, "signature": "sig=="})
	}
	call := func(i int) string {
		id := fmt.Sprintf("toolu_%s_%d", msgID, i)
		g.calls = append(g.calls, id)
		return id
	}
	if !parallel {
		for i := 0; i < k; i++ {
			id := call(i)
			a := g.assistant(prev, msgID, map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "echo " + id}})
			prev = g.result(a, id)
		}
		return prev
	}
	holders := make([]string, k)
	ids := make([]string, k)
	for i := 0; i < k; i++ {
		ids[i] = call(i)
		holders[i] = g.assistant(prev, msgID, map[string]any{"type": "tool_use", "id": ids[i], "name": "Read", "input": map[string]any{"file_path": ids[i]}})
		prev = holders[i]
	}
	if order == nil {
		for i := range k {
			order = append(order, i)
		}
	}
	last := ""
	for _, i := range order {
		last = g.result(holders[i], ids[i])
	}
	return last
}

func (g *cc21) text(parent, msgID, text string) string {
	return g.assistant(parent, msgID, map[string]any{"type": "text", "text": text})
}

func (g *cc21) String() string { return strings.Join(g.lines, "\n") + "\n" }

// randomCC21 is a session of random turns, each parallel or sequential,
// results written in a random order.
func randomCC21(rng *rand.Rand, session string) *cc21 {
	g := newCC21(session, "")
	prev := ""
	for turn := range 1 + rng.Intn(4) {
		prev = g.user(prev, fmt.Sprintf("task %d", turn))
		for step := range 1 + rng.Intn(3) {
			msgID := fmt.Sprintf("msg_%d_%d", turn, step)
			k := 1 + rng.Intn(4)
			order := rng.Perm(k)
			prev = g.turn(prev, msgID, rng.Intn(2) == 0, k, rng.Intn(3) != 0, order)
		}
		prev = g.text(prev, fmt.Sprintf("msg_%d_end", turn), "done")
	}
	return g
}

// storedCalls is every call and every result conv holds, and the first
// result stored that answers no call of the assistant record before it.
func storedCalls(t *testing.T, s store.Store, conv string) (calls, results map[string]bool, stray string) {
	t.Helper()
	calls, results = map[string]bool{}, map[string]bool{}
	var open map[string]bool
	err := s.Read(t.Context(), conv, store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		switch r.Message.Role {
		case transcript.RoleAssistant:
			open = map[string]bool{}
			for _, c := range r.Message.ToolCalls {
				calls[c.ID], open[c.ID] = true, true
			}
		case transcript.RoleTool:
			results[r.Message.ToolCallID] = true
			if !open[r.Message.ToolCallID] && stray == "" {
				stray = r.Message.ToolCallID
			}
		case transcript.RoleUser:
			open = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls, results, stray
}

// checkEveryCall: every tool_use id g wrote is a call in conv, and every
// result g wrote is stored after its call.
func checkEveryCall(t *testing.T, s store.Store, conv string, g *cc21, what string) {
	t.Helper()
	calls, results, stray := storedCalls(t, s, conv)
	for _, c := range g.calls {
		if !calls[c] {
			t.Fatalf("%s: call %s not stored", what, c)
		}
	}
	for _, c := range g.results {
		if !results[c] {
			t.Fatalf("%s: the result of %s, in the file, not stored", what, c)
		}
	}
	if stray != "" {
		t.Fatalf("%s: the result of %s stands where no call awaits it", what, stray)
	}
}

// TestClaudeCode21EveryCallHasItsResult is the property: in a Claude
// Code 2.1 session however its calls and results are laid out, every
// tool_use id has its call and, when the file holds one, its result in
// the store, after the call; imported whole, and imported cut at any
// line then whole, the same ids are stored.
func TestClaudeCode21EveryCallHasItsResult(t *testing.T) {
	runs := 40
	if testing.Short() {
		runs = 15
	}
	for seed := range runs {
		rng := rand.New(rand.NewSource(int64(seed)))
		session := fmt.Sprintf("%08x-2121-4000-8000-000000000000", seed)
		g := randomCC21(rng, session)
		dir := t.TempDir()
		p := filepath.Join(dir, session+".jsonl")
		if err := os.WriteFile(p, []byte(g.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		_, warned, err := run(t, s, "claude-code", Options{}, p)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		what := fmt.Sprintf("seed %d", seed)
		checkEveryCall(t, s, session, g, what)
		if strings.Contains(strings.Join(warned, "\n"), "answering no call") {
			t.Fatalf("%s: %q", what, warned)
		}
		whole := ids(t, s, session)
		// Cut at a random line, then whole: the same ids, every call answered.
		cut := 1 + rng.Intn(len(g.lines)-1)
		s2 := openStore(t)
		if err := os.WriteFile(p, []byte(strings.Join(g.lines[:cut], "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, s2, "claude-code", Options{}, p); err != nil {
			t.Fatalf("%s cut at %d: %v", what, cut, err)
		}
		if err := os.WriteFile(p, []byte(g.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		im, warned, err := run(t, s2, "claude-code", Options{}, p)
		if err != nil {
			t.Fatalf("%s cut at %d, whole: %v", what, cut, err)
		}
		if im.Tally.Forks != 0 {
			t.Fatalf("%s cut at %d: a fork: %q", what, cut, warned)
		}
		checkEveryCall(t, s2, session, g, fmt.Sprintf("%s cut at %d", what, cut))
		if got := ids(t, s2, session); got != whole {
			t.Fatalf("%s cut at %d: ids\n%s\nwant\n%s", what, cut, got, whole)
		}
	}
}

// ids is conv's record ids, sorted.
func ids(t testing.TB, s store.Store, conv string) string {
	t.Helper()
	var out []string
	err := s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(r.Body, &rec); err != nil {
			return err
		}
		out = append(out, rec.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestClaudeCodeFixturesEveryCallHasItsResult: in every Claude Code
// fixture (2.0 and 2.1, sessions and sub-agents), every tool_use id has
// its call in the store, and its result when the file holds one; what
// the file holds and the store lacks is named.
func TestClaudeCodeFixturesEveryCallHasItsResult(t *testing.T) {
	dir := filepath.Join("testdata", "claude-code")
	calls, results := map[string]string{}, map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for n, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(l), &e) != nil {
				continue
			}
			var blocks []block
			if json.Unmarshal(e.Message.Content, &blocks) != nil {
				continue
			}
			for _, bl := range blocks {
				where := fmt.Sprintf("%s:%d", p, n+1)
				switch bl.Type {
				case "tool_use":
					calls[bl.ID] = where
				case "tool_result":
					results[bl.ToolUseID] = where
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "claude-code", Options{Branches: true}, dir); err != nil {
		t.Fatal(err)
	}
	var convs []string
	if err := s.Conversations(t.Context(), func(c store.ConversationInfo) error { convs = append(convs, c.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	haveCalls, haveResults := map[string]bool{}, map[string]bool{}
	for _, c := range convs {
		cs, rs, stray := storedCalls(t, s, c)
		if stray != "" {
			t.Errorf("%s: the result of %s stands where no call awaits it", c, stray)
		}
		for k := range cs {
			haveCalls[k] = true
		}
		for k := range rs {
			haveResults[k] = true
		}
	}
	for id, where := range calls {
		if !haveCalls[id] {
			t.Errorf("call %s (%s) not stored", id, where)
		}
	}
	for id, where := range results {
		if !haveResults[id] {
			t.Errorf("the result of %s (%s) not stored", id, where)
		}
	}
}

// TestIDsSameInTwoStores imports every fixture of every format into two
// stores and compares every id stored, placeholders' included (rule 2:
// a session whose first item is no user's, a compaction followed by an
// answer).
func TestIDsSameInTwoStores(t *testing.T) {
	for _, name := range Names() {
		dir := filepath.Join("testdata", name)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		var got [2]string
		fakes := 0
		for k := range got {
			s := openStore(t)
			if _, _, err := run(t, s, name, Options{Branches: true}, dir); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			err := s.Conversations(t.Context(), func(c store.ConversationInfo) error {
				return s.Read(t.Context(), c.ID, store.ReadOptions{}, func(r store.Row) error {
					var rec transcript.Record
					if err := transcript.DecodeStored(r.Body, &rec); err != nil {
						return err
					}
					if rec.IsFake() && k == 0 {
						fakes++
					}
					fmt.Fprintf(&b, "%s %s %s\n", c.ID, rec.ID, rec.Message.Role)
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			got[k] = b.String()
		}
		if got[0] != got[1] {
			t.Errorf("%s: ids differ between two stores:\n%s", name, golden.FirstDiff(got[0], got[1]))
		}
		t.Logf("%s: %d placeholders", name, fakes)
	}
}
