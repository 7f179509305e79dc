// Command gen writes benchmark inputs: n JSONL messages with alternating
// roles (so nothing merges), as a chat client would send them; or, with
// -domain, the messages of the eval's generated support chats or
// coding-agent sessions (tool calls and results), one conversation after
// another, as long as n lines.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/transcript"
)

func main() {
	n := flag.Int("n", 1000, "lines")
	domain := flag.String("domain", "", "support or agent: the eval's generated conversations instead")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
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
