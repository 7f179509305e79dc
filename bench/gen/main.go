// Command gen writes benchmark inputs: n JSONL messages with alternating
// roles (so nothing merges), as a chat client would send them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int("n", 1000, "lines")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	roles := [2]string{"user", "assistant"}
	for i := range *n {
		fmt.Fprintf(w, `{"role":%q,"content":"message %d: the quick brown fox jumps over the lazy dog, again and again."}`+"\n", roles[i%2], i)
	}
}
