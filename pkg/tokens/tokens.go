// Package tokens counts tokens offline with a real BPE tokenizer, so
// triggers and reports need no network.
package tokens

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Names lists the supported encodings.
var Names = []string{string(tokenizer.O200kBase), string(tokenizer.Cl100kBase)}

// Default is the encoding used when none is named (GPT-4o and later).
const Default = string(tokenizer.O200kBase)

// Counter counts tokens in one encoding. It is safe for concurrent use.
type Counter struct {
	codec tokenizer.Codec
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
	case Default, string(tokenizer.Cl100kBase):
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
	c, err := tokenizer.Get(tokenizer.Encoding(name))
	if err != nil {
		return nil, err
	}
	split := splitO200k
	if name == string(tokenizer.Cl100kBase) {
		split = splitCl100k
	}
	return &Counter{codec: c, name: name, split: split, cache: newPieceCache()}, nil
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

// Count returns the tokens of s: what the codec counts, piece by piece.
// The codec splits s into pieces and merges each into tokens on its own,
// so the sum of the pieces' counts is the count of s; Count splits s
// itself and asks the codec only for the pieces its cache lacks
// (FuzzCountMatchesCodec holds the two to the same result).
func (c *Counter) Count(s string) int {
	text := s
	if !utf8.ValidString(text) {
		// The codec's regexp engine reads each invalid byte as U+FFFD and
		// hands back pieces of that text: count the same.
		text = string([]rune(text))
	}
	n := 0
	for at := 0; at < len(text); {
		end := c.split(text, at)
		if end == at { // no piece starts here: move on, as the codec does
			_, w := utf8.DecodeRuneInString(text[at:])
			at += w
			continue
		}
		tokens, ok := c.pieceTokens(text[at:end])
		if !ok {
			return c.countWhole(s)
		}
		n += tokens
		at = end
	}
	return n
}

// pieceTokens returns the tokens of one piece, from the cache or the codec.
func (c *Counter) pieceTokens(piece string) (int, bool) {
	if n, ok := c.cache.get(piece); ok {
		return n, true
	}
	n, err := c.codec.Count(piece)
	if err != nil {
		return 0, false
	}
	c.cache.put(piece, n)
	return n, true
}

// countWhole counts s with the codec alone.
func (c *Counter) countWhole(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		// Input is valid UTF-8 by the time it is stored; fall back to a
		// rough estimate rather than fail a report.
		return len(s) / 4
	}
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
	ids, _, err := c.codec.Encode(" " + strings.ToLower(word))
	if err != nil || len(ids) == 0 {
		return 0
	}
	rank := float64(ids[0])
	if len(ids) > 1 {
		rank = rarityVocabulary * float64(len(ids))
	}
	return max(0, math.Log(rank+1)-rarityFloor)
}

const (
	rarityVocabulary = 200_000
	rarityFloor      = 7 // ln(1097): the commonest thousand or so words weigh nothing
)
