package tokens

import (
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/convo-cli/convo/pkg/tokens/internal/bpe"
	"github.com/convo-cli/convo/pkg/tokens/internal/vocab"
)

// TestTablesMatchCodec: each committed table is what the generator writes
// from tiktoken-go in go.mod (else: go generate ./pkg/tokens), and holds
// the codec's vocabulary: every token is found at its rank and counts as
// one token.
func TestTablesMatchCodec(t *testing.T) {
	embedded := map[string]string{o200kBase: o200kData, cl100kBase: cl100kData}
	for _, c := range counters(t) {
		tokens, err := vocab.Tokens(c.name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := bpe.Build(tokens)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != embedded[c.name] {
			t.Errorf("%s: tables/%s.bpe is not what tiktoken-go gives: run go generate ./pkg/tokens", c.name, c.name)
		}
		table := c.table()
		if table.Len() != len(tokens) {
			t.Fatalf("%s: the table has %d ranks, tiktoken-go %d", c.name, table.Len(), len(tokens))
		}
		for rank, token := range tokens {
			if got := table.Token(rank); got != token {
				t.Fatalf("%s: token of rank %d is %q, tiktoken-go %q", c.name, rank, got, token)
			}
			if token == "" {
				continue
			}
			if r, ok := table.Rank(token); !ok || int(r) != rank {
				t.Fatalf("%s: Rank(%q) = %d, %v; want %d", c.name, token, r, ok, rank)
			}
			if n := table.Count(token); n != 1 {
				t.Fatalf("%s: token %q (rank %d) counts %d tokens", c.name, token, rank, n)
			}
		}
		checkCodecVocabulary(t, c, table)
	}
}

// checkCodecVocabulary fails t unless every entry of the codec's own
// vocabulary map has its rank in table, and table has no other token.
func checkCodecVocabulary(t *testing.T, c *Counter, table *bpe.Table) {
	t.Helper()
	vocabulary := codecVocabulary(t, codecOf(t, c).(*codec.Codec))
	for it := vocabulary.MapRange(); it.Next(); {
		token, rank := it.Key().String(), it.Value().Uint()
		if r, ok := table.Rank(token); !ok || uint64(r) != rank {
			t.Fatalf("%s: Rank(%q) = %d, %v; the codec's vocabulary %d", c.name, token, r, ok, rank)
		}
	}
	n := 0
	for rank := range table.Len() {
		if table.Token(rank) != "" {
			n++
		}
	}
	if n != vocabulary.Len() {
		t.Fatalf("%s: the table has %d tokens, the codec's vocabulary %d", c.name, n, vocabulary.Len())
	}
}
