// Package bpe holds a byte-pair encoding's vocabulary as a table read in
// place, from a file embedded in the binary, and tiktoken's merge over it:
// a process that counts tokens builds no map of the vocabulary (building
// tiktoken-go's took 50 ms of every convo process that counted a token).
package bpe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// A table file is, little-endian:
//
//	magic    "BPE1"
//	n        uint32: tokens have ranks 0..n-1 (a rank with no token has length 0)
//	bits     uint32: the hash table has 1<<bits slots
//	lengths  [n]byte: each token's length in bytes, in rank order
//	starts   [n/stride+2]uint32: where in blob the token of rank stride×i
//	         starts; the last is len(blob)
//	slots    [1<<bits]uint32: empty, or rank | fingerprint<<bits
//	blob     the tokens' bytes, in rank order
//
// The slots are an open-addressing hash table (linear probing) of the
// tokens by their bytes, built by the generator, so a lookup reads the
// file as it is. A slot's fingerprint (the hash's top 32-bits bits) lets a
// probe skip most slots without comparing bytes. A token's start is its
// stride's plus the lengths before it in the stride: nothing is computed
// when a process opens the file, whose every page it touches costs a page
// fault (a pass over the lengths and a table of all starts cost 1-3 ms on
// a loaded machine).
const (
	magic     = "BPE2"
	headerLen = 12
	stride    = 16
	empty     = ^uint32(0)
	// maxLoad keeps the table at most 80% full (probes stay short), so
	// 1<<bits exceeds every rank by a margin and no slot equals empty.
	maxLoadNum, maxLoadDen = 4, 5
)

// Table is a vocabulary read in place. It is safe for concurrent use.
type Table struct {
	lengths []byte
	starts  []byte
	slots   []byte
	blob    string
	bits    uint
	mask    uint32
}

// layout returns the lengths of the lengths, starts and slots sections.
func layout(n int, bits uint) (lengths, starts, slots int) {
	return n, 4 * (n/stride + 2), 4 << bits
}

// hash is FNV-1a, 64 bits: the generator and the lookup must agree on it.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Build returns the table file of tokens, given in rank order ("" for a
// rank with no token). Tokens are distinct and at most 255 bytes long.
func Build(tokens []string) ([]byte, error) {
	bits := uint(1)
	for (1<<bits)*maxLoadNum < len(tokens)*maxLoadDen {
		bits++
	}
	nl, ns, nt := layout(len(tokens), bits)
	head := headerLen + nl + ns + nt
	out := make([]byte, head, head+8*len(tokens))
	copy(out, magic)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(tokens)))
	binary.LittleEndian.PutUint32(out[8:], uint32(bits))
	lengths := out[headerLen : headerLen+nl]
	starts := out[headerLen+nl : headerLen+nl+ns]
	slots := out[headerLen+nl+ns : head]
	for i := range 1 << bits {
		binary.LittleEndian.PutUint32(slots[4*i:], empty)
	}
	for rank, t := range tokens {
		if len(t) > 255 {
			return nil, fmt.Errorf("token %d is %d bytes long (at most 255)", rank, len(t))
		}
		if rank%stride == 0 {
			binary.LittleEndian.PutUint32(starts[4*(rank/stride):], uint32(len(out)-head))
		}
		lengths[rank] = byte(len(t))
		out = append(out, t...)
		if t != "" {
			insert(slots, bits, t, uint32(rank))
		}
	}
	binary.LittleEndian.PutUint32(starts[len(starts)-4:], uint32(len(out)-head))
	return out, nil
}

// insert puts rank, the rank of token t, in the first free slot from t's.
func insert(slots []byte, bits uint, t string, rank uint32) {
	mask := uint32(1)<<bits - 1
	h := hash(t)
	i := uint32(h) & mask
	for binary.LittleEndian.Uint32(slots[4*i:]) != empty {
		i = (i + 1) & mask
	}
	binary.LittleEndian.PutUint32(slots[4*i:], rank|uint32(h>>(32+bits))<<bits)
}

// Open reads a table file in place; data must stay unchanged (an embedded
// file does). It reads only the header: a corrupt file past it gives wrong
// ranks, never a panic or an endless lookup (FuzzOpen).
func Open(data string) (*Table, error) {
	if len(data) < headerLen || data[:4] != magic {
		return nil, errors.New("bpe: not a table file")
	}
	b := unsafe.Slice(unsafe.StringData(data), len(data)) // read only
	n := int(binary.LittleEndian.Uint32(b[4:]))
	bits := uint(binary.LittleEndian.Uint32(b[8:]))
	if bits > 30 || n > 1<<30 || n*maxLoadDen > (1<<bits)*maxLoadNum {
		return nil, errors.New("bpe: table file corrupt")
	}
	nl, ns, nt := layout(n, bits)
	head := headerLen + nl + ns + nt
	if head > len(data) {
		return nil, errors.New("bpe: table file truncated")
	}
	t := &Table{
		lengths: b[headerLen : headerLen+nl],
		starts:  b[headerLen+nl : headerLen+nl+ns],
		slots:   b[headerLen+nl+ns : head],
		blob:    data[head:],
		bits:    bits,
		mask:    uint32(1)<<bits - 1,
	}
	if int(binary.LittleEndian.Uint32(t.starts[ns-4:])) != len(t.blob) {
		return nil, errors.New("bpe: table file truncated or corrupt")
	}
	return t, nil
}

// Len returns the number of ranks (tokens and gaps).
func (t *Table) Len() int { return len(t.lengths) }

// Token returns the bytes of the token of rank ("" if it has none).
func (t *Table) Token(rank int) string {
	return t.token(uint32(rank))
}

// token returns the bytes of the token of rank: its stride's start plus
// the lengths before it in the stride.
func (t *Table) token(rank uint32) string {
	at := int(binary.LittleEndian.Uint32(t.starts[4*(rank/stride):]))
	for _, l := range t.lengths[rank&^(stride-1) : rank] {
		at += int(l)
	}
	end := at + int(t.lengths[rank])
	if end > len(t.blob) { // only in a corrupt file
		return ""
	}
	return t.blob[at:end]
}

// Rank returns the rank of the token whose bytes are s, if s is one.
func (t *Table) Rank(s string) (uint32, bool) {
	h := hash(s)
	fp := uint32(h >> (32 + t.bits))
	i := uint32(h) & t.mask
	for range len(t.slots) / 4 { // a file Build wrote has an empty slot long before
		slot := binary.LittleEndian.Uint32(t.slots[4*i:])
		if slot == empty {
			return 0, false
		}
		if slot>>t.bits == fp {
			r := slot & t.mask
			if int(r) < len(t.lengths) && int(t.lengths[r]) == len(s) && t.token(r) == s {
				return r, true
			}
		}
		i = (i + 1) & t.mask
	}
	return 0, false
}
