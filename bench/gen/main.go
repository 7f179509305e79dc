// Command gen writes benchmark inputs: n JSONL messages with alternating
// roles (so nothing merges), as a chat client would send them; or, with
// -domain, the messages of the eval's generated support chats or
// coding-agent sessions (tool calls and results), one conversation after
// another, as long as n lines; or, with -claude-code BYTES, a Claude Code
// session file of about that size (turns of a prompt, thinking, text, a
// tool call and its 2 KB result, an answer), for bench/run-import.sh.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	n := flag.Int("n", 1000, "lines")
	domain := flag.String("domain", "", "support or agent: the eval's generated conversations instead")
	ccBytes := flag.Int("claude-code", 0, "write a Claude Code session of about this many bytes instead")
	session := flag.String("session", "bench", "the -claude-code session's id")
	sessions := flag.Int("sessions", 0, "with -claude-code and -out: write this many sessions, s0000.jsonl ..., into -out")
	out := flag.String("out", "", "the directory of -sessions")
	flag.Parse()
	if *ccBytes > 0 && *sessions > 0 {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		for i := range *sessions {
			id := fmt.Sprintf("s%04d", i)
			f, err := os.Create(filepath.Join(*out, id+".jsonl"))
			if err != nil {
				fmt.Fprintln(os.Stderr, "gen:", err)
				os.Exit(1)
			}
			fw := bufio.NewWriter(f)
			claudeCode(fw, id, *ccBytes)
			if err := errors.Join(fw.Flush(), f.Close()); err != nil {
				fmt.Fprintln(os.Stderr, "gen:", err)
				os.Exit(1)
			}
		}
		return
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	if *ccBytes > 0 {
		claudeCode(w, *session, *ccBytes)
		return
	}
	if *domain == "" {
		roles := [2]string{"user", "assistant"}
		for i := range *n {
			fmt.Fprintf(w, `{"role":%q,"content":"message %d: the quick brown fox jumps over the lazy dog, again and again."}`+"\n", roles[i%2], i)
		}
		return
	}
	gen := map[string]func(int64, int) []domains.Conversation{"support": domains.Support, "agent": domains.Agent}[*domain]
	if gen == nil {
		fmt.Fprintf(os.Stderr, "gen: -domain %q: want support or agent\n", *domain)
		os.Exit(2)
	}
	var buf []byte
	lines := 0
	const start = 1767225600000 // 2026-01-01
	for seed := int64(1); lines < *n; seed++ {
		for _, c := range gen(seed, 8) {
			for _, m := range c.Messages {
				if lines == *n {
					return
				}
				r := transcript.Record{Message: m}
				r.Metadata.Timing.Creation = start + int64(lines)*2000 // a message every 2 s
				buf = transcript.AppendJSON(buf[:0], &r)
				w.Write(append(buf, '\n'))
				lines++
			}
		}
	}
}

// claudeCode writes a Claude Code session of about size bytes, shaped as
// pkg/importer's benchmark's: a prompt, thinking, text and a tool call
// (one entry each, one message.id), the result, the answer.
func claudeCode(w *bufio.Writer, session string, size int) {
	body := strings.Repeat("Some source text of the file being read, line by line. ", 40)
	parent, n, written := "", 0, 0
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		n++
		id := fmt.Sprintf("%s-e%08d", session, n)
		v["uuid"], v["sessionId"], v["timestamp"] = id, session, t0.Add(time.Duration(n)*time.Second).Format(time.RFC3339Nano)
		v["parentUuid"] = nil
		if parent != "" {
			v["parentUuid"] = parent
		}
		parent = id
		b, _ := json.Marshal(v)
		written += len(b) + 1
		w.Write(append(b, '\n'))
	}
	msg := func(id string, content ...any) map[string]any {
		return map[string]any{"id": id, "role": "assistant", "model": "claude-sonnet-4-5", "content": content}
	}
	for turn := 0; written < size; turn++ {
		mid, call := fmt.Sprintf("msg_%d", turn), fmt.Sprintf("toolu_%d", turn)
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("Please read file %d", turn)}})
		add(map[string]any{"type": "assistant", "message": msg(mid, map[string]any{"type": "thinking", "thinking": "I will read it.", "signature": "c2lnbmF0dXJl"})})
		add(map[string]any{"type": "assistant", "message": msg(mid, map[string]any{"type": "text", "text": "Reading the file."})})
		m := msg(mid, map[string]any{"type": "tool_use", "id": call, "name": "Read", "input": map[string]any{"file_path": "/x.go"}})
		m["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 20}
		add(map[string]any{"type": "assistant", "message": m})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": body}}}})
		add(map[string]any{"type": "assistant", "message": msg(mid+"b", map[string]any{"type": "text", "text": fmt.Sprintf("Done with file %d", turn)})})
	}
}
