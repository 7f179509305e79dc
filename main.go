// Command convo keeps, shrinks, replays and logs LLM conversation transcripts.
package main

import (
	"os"

	"github.com/convo-cli/convo/cmd"
)

func main() { os.Exit(cmd.Main()) }
