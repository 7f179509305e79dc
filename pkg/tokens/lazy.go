package tokens

import (
	"sync"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Lazy is the counter of one tokenizer, loaded on first use, once: a
// process that counts nothing (a write that changes no view) loads no
// table. It is safe for concurrent use.
type Lazy struct {
	counter func() (*Counter, error)
}

// NewLazy is the counter of tokenizer name (New), loaded on first use.
func NewLazy(name string) *Lazy {
	return &Lazy{counter: sync.OnceValues(func() (*Counter, error) { return New(name) })}
}

// Stored is Counter.Stored by the tokenizer, loading it first.
func (l *Lazy) Stored(role string, body []byte) (int, error) {
	c, err := l.counter()
	if err != nil {
		return 0, err
	}
	return c.Stored(role, body)
}

// InHand is Counter.InHand by the tokenizer, loading it first.
func (l *Lazy) InHand(r *transcript.Record) (int, error) {
	c, err := l.counter()
	if err != nil {
		return 0, err
	}
	return c.InHand(r)
}
