// Package vocab reads an encoding's vocabulary out of tiktoken-go: the
// source of the embedded tables (the generator) and the tests' oracle.
// Nothing convo runs imports it, so tiktoken-go is not in its binary.
package vocab

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// maxRank bounds the ranks tried: both encodings' tokens rank below 2^18.
const maxRank = 1 << 18

// Tokens returns the tokens of the named encoding in rank order, "" for a
// rank with none (the codec decodes each alone). Special tokens are not in
// it: the codec's Count treats "<|endoftext|>" and the like as text.
func Tokens(name string) ([]string, error) {
	codec, err := tokenizer.Get(tokenizer.Encoding(name))
	if err != nil {
		return nil, fmt.Errorf("vocabulary of %s: %w", name, err)
	}
	tokens := make([]string, 0, maxRank)
	last := -1
	for rank := range maxRank {
		s, err := codec.Decode([]uint{uint(rank)})
		if err != nil {
			s = "" // no token of this rank
		}
		if s != "" {
			last = rank
		}
		tokens = append(tokens, s)
	}
	return tokens[:last+1], nil
}

// Codec returns tiktoken-go's codec of the named encoding.
func Codec(name string) (tokenizer.Codec, error) {
	return tokenizer.Get(tokenizer.Encoding(name))
}
