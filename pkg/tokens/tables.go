package tokens

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/convo-cli/convo/pkg/tokens/internal/bpe"
)

// The vocabularies, generated from tiktoken-go (TestTablesMatchCodec fails
// when they differ from it): read in place, so a process that counts
// builds no map of 200,000 tokens.
//
//go:generate go run ./internal/gen -dir tables o200k_base cl100k_base
var (
	//go:embed tables/o200k_base.bpe
	o200kData string
	//go:embed tables/cl100k_base.bpe
	cl100kData string
)

var (
	o200kTable  = openTable(o200kBase, &o200kData)
	cl100kTable = openTable(cl100kBase, &cl100kData)
)

// openTable returns a function that opens an embedded table at its first
// call (about 0.1 ms), only in a process that counts.
func openTable(name string, data *string) func() *bpe.Table {
	return sync.OnceValue(func() *bpe.Table {
		t, err := bpe.Open(*data)
		if err != nil {
			// The file is part of the binary, checked by the tests.
			panic(fmt.Sprintf("tokens: the embedded %s table: %v", name, err))
		}
		return t
	})
}
