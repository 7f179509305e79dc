// Command gen writes the vocabulary tables pkg/tokens embeds, one per
// encoding, from tiktoken-go (go generate in pkg/tokens, or make tokens).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/convo-cli/convo/pkg/tokens/internal/bpe"
	"github.com/convo-cli/convo/pkg/tokens/internal/vocab"
)

func main() {
	dir := flag.String("dir", ".", "directory to write ENCODING.bpe into")
	flag.Parse()
	for _, name := range flag.Args() {
		if err := write(*dir, name); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

// write writes the table of one encoding.
func write(dir, name string) error {
	tokens, err := vocab.Tokens(name)
	if err != nil {
		return err
	}
	data, err := bpe.Build(tokens)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.WriteFile(filepath.Join(dir, name+".bpe"), data, 0o644)
}
