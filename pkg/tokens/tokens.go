// Package tokens counts tokens offline with a real BPE tokenizer, so
// triggers and reports need no network.
package tokens

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/tokens/internal/bpe"
	"github.com/convo-cli/convo/pkg/transcript"
)

// The encodings' names.
const (
	o200kBase  = "o200k_base"
	cl100kBase = "cl100k_base"
)

// Names lists the supported encodings.
var Names = []string{o200kBase, cl100kBase}

// Default is the encoding used when none is named (GPT-4o and later).
const Default = o200kBase

// Counter counts tokens in one encoding. It is safe for concurrent use.
type Counter struct {
	table func() *bpe.Table // the vocabulary, opened at the first count
	name  string
	split splitter    // the codec's pre-tokenizer, written out
	cache *pieceCache // tokens of the pieces seen
}

// Canonical is the name of the named encoding ("" is Default), or an
// error for one convo does not have; nothing is loaded.
func Canonical(name string) (string, error) {
	switch name {
	case "":
		return Default, nil
	case o200kBase, cl100kBase:
		return name, nil
	}
	return "", fmt.Errorf("unknown tokenizer %q (want o200k_base or cl100k_base)", name)
}

// New returns a Counter for the named encoding.
func New(name string) (*Counter, error) {
	name, err := Canonical(name)
	if err != nil {
		return nil, err
	}
	table, split := o200kTable, splitO200k
	if name == cl100kBase {
		table, split = cl100kTable, splitCl100k
	}
	return &Counter{table: table, name: name, split: split, cache: newPieceCache()}, nil
}

// Name returns the encoding's name: the key of token counts kept by a store.
func (c *Counter) Name() string { return c.name }

// Stored returns the tokens a stored record adds to an LLM view, from its
// role and canonical body: none for a system record (View leaves it out).
func (c *Counter) Stored(role string, body []byte) (int, error) {
	if role == string(transcript.RoleSystem) {
		return 0, nil
	}
	var r transcript.Record
	if err := transcript.DecodeStored(body, &r); err != nil {
		return 0, err
	}
	return c.Record(&r), nil
}

// InHand is Stored of r's stored body, counted from r itself: a writer
// holding the record need not decode what it wrote.
func (c *Counter) InHand(r *transcript.Record) (int, error) {
	if r.Message.Role == transcript.RoleSystem {
		return 0, nil
	}
	return c.Record(r), nil
}

// Count returns the tokens of s: what tiktoken's codec counts, piece by
// piece. The codec splits s into pieces and merges each into tokens on its
// own, so the sum of the pieces' counts is the count of s; Count splits s
// the same way and merges only the pieces its cache lacks
// (FuzzCountMatchesCodec holds the two to the same result).
func (c *Counter) Count(s string) int {
	n := 0
	c.eachPiece(s, func(piece string) bool {
		n += c.pieceTokens(piece)
		return true
	})
	return n
}

// eachPiece calls yield with each piece of s, in order, until it returns
// false.
func (c *Counter) eachPiece(s string, yield func(piece string) bool) {
	if !utf8.ValidString(s) {
		// The codec's regexp engine reads each invalid byte as U+FFFD and
		// hands back pieces of that text: count the same.
		s = string([]rune(s))
	}
	for at := 0; at < len(s); {
		end := c.split(s, at)
		if end == at { // no piece starts here: move on, as the codec does
			_, w := utf8.DecodeRuneInString(s[at:])
			at += w
			continue
		}
		if !yield(s[at:end]) {
			return
		}
		at = end
	}
}

// pieceTokens returns the tokens of one piece, from the cache or merged.
func (c *Counter) pieceTokens(piece string) int {
	if n, ok := c.cache.get(piece); ok {
		return n
	}
	n := c.table().Count(piece)
	c.cache.put(piece, n)
	return n
}

// Record returns the tokens of what a record sends: its contents, tool
// calls (name and arguments) and tool name.
func (c *Counter) Record(r *transcript.Record) int {
	n := 0
	for _, s := range r.Message.Contents {
		n += c.Count(s)
	}
	for _, tc := range r.Message.ToolCalls {
		n += c.Count(tc.Name) + c.Count(tc.Arguments)
	}
	if r.Message.Name != "" {
		n += c.Count(r.Message.Name)
	}
	return n
}

// View returns the tokens of an LLM view: the summary and the messages
// (the system prompt is left out: it is the same with or without summaries).
func (c *Counter) View(v transcript.View) int {
	n := 0
	if v.Summary != nil {
		n += c.Record(v.Summary)
	}
	for i := range v.Messages {
		n += c.Record(&v.Messages[i])
	}
	return n
}

// ViewTally counts what View counts, record by record, holding none of
// them: a stored conversation of any length streams through it. Feed it as
// a transcript.ViewFilter is fed: in transcript order, from the latest
// summary on.
type ViewTally struct {
	c   *Counter
	f   transcript.ViewFilter
	rec transcript.Record
	n   int
}

// Tally returns an empty ViewTally counting with c.
func (c *Counter) Tally() *ViewTally { return &ViewTally{c: c} }

// Add feeds the next record.
func (t *ViewTally) Add(r *transcript.Record) {
	switch t.f.Add(r.Message.Role) {
	case transcript.ViewSystem:
		return
	case transcript.ViewSummary:
		t.n = 0 // what came before the summary is not in the view
	}
	t.n += t.c.Record(r)
}

// AddStored feeds the next record as stored: its role, and its canonical
// body, decoded only when the record counts.
func (t *ViewTally) AddStored(role transcript.Role, body []byte) error {
	if role == transcript.RoleSystem {
		return nil
	}
	if err := transcript.DecodeStored(body, &t.rec); err != nil {
		return err
	}
	t.Add(&t.rec)
	return nil
}

// Tokens returns the tokens of the view fed so far.
func (t *ViewTally) Tokens() int { return t.n }

// Rarity is how uncommon a word is in general text, from the tokenizer's
// own vocabulary: BPE merges the most frequent strings first, so a word
// that is one token with a low id is common ("the", "great"), one with a
// high id is rarer ("violin"), and one split into several tokens rarer
// still ("guinea", "Gatsby"). It is log(id), or log(vocabulary × pieces)
// for a split word, less the log of the id below which every word is
// common; never below 0. The word is taken lower-case, after a space, as it
// stands inside a sentence.
func (c *Counter) Rarity(word string) float64 {
	text := " " + strings.ToLower(word)
	first, n := c.firstRank(text), c.Count(text)
	if n == 0 {
		return 0
	}
	rank := float64(first)
	if n > 1 {
		rank = rarityVocabulary * float64(n)
	}
	return max(0, math.Log(rank+1)-rarityFloor)
}

// firstRank returns the rank of the first token of s (0 if s has none),
// the codec's first id.
func (c *Counter) firstRank(s string) uint32 {
	var rank uint32
	c.eachPiece(s, func(piece string) bool {
		t := c.table()
		bounds := t.Split(piece)
		rank, _ = t.Rank(piece[:bounds[1]])
		return false
	})
	return rank
}

const (
	rarityVocabulary = 200_000
	rarityFloor      = 7 // ln(1097): the commonest thousand or so words weigh nothing
)
