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
//	slots    [1<<bits]uint32: empty, or rank | fingerprint<<bits
//	blob     the tokens' bytes, in rank order
//
// The slots are an open-addressing hash table (linear probing) of the
// tokens by their bytes, built by the generator, so a lookup reads the
// file as it is. A slot's fingerprint (the hash's top 32-bits bits) lets a
// probe skip most slots without comparing bytes.
const (
	magic     = "BPE1"
	headerLen = 12
	empty     = ^uint32(0)
	// maxLoad keeps the table at most 80% full (probes stay short), so
	// 1<<bits exceeds every rank by a margin and no slot equals empty.
	maxLoadNum, maxLoadDen = 4, 5
)

// Table is a vocabulary read in place. It is safe for concurrent use.
type Table struct {
	lengths []byte
	slots   []byte
	blob    string
	offsets []uint32 // where each rank's token starts in blob; offsets[n] = len(blob)
	bits    uint
	mask    uint32
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
	mask := uint32(1)<<bits - 1
	size := 0
	for _, t := range tokens {
		size += len(t)
	}
	out := make([]byte, headerLen+len(tokens)+4<<bits, headerLen+len(tokens)+4<<bits+size)
	copy(out, magic)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(tokens)))
	binary.LittleEndian.PutUint32(out[8:], uint32(bits))
	lengths, slots := out[headerLen:headerLen+len(tokens)], out[headerLen+len(tokens):]
	for i := range 1 << bits {
		binary.LittleEndian.PutUint32(slots[4*i:], empty)
	}
	for rank, t := range tokens {
		if len(t) > 255 {
			return nil, fmt.Errorf("token %d is %d bytes long (at most 255)", rank, len(t))
		}
		lengths[rank] = byte(len(t))
		out = append(out, t...)
		if t == "" {
			continue
		}
		h := hash(t)
		i := uint32(h) & mask
		for binary.LittleEndian.Uint32(slots[4*i:]) != empty {
			i = (i + 1) & mask
		}
		binary.LittleEndian.PutUint32(slots[4*i:], uint32(rank)|uint32(h>>(32+bits))<<bits)
	}
	return out, nil
}

// Open reads a table file in place; data must stay unchanged (an embedded
// file does). It costs one pass over the lengths (about 0.1 ms for 200,000
// tokens).
func Open(data string) (*Table, error) {
	if len(data) < headerLen || data[:4] != magic {
		return nil, errors.New("bpe: not a table file")
	}
	b := unsafe.Slice(unsafe.StringData(data), len(data)) // read only
	n := int(binary.LittleEndian.Uint32(b[4:]))
	bits := uint(binary.LittleEndian.Uint32(b[8:]))
	if bits > 30 || headerLen+n+4<<bits > len(data) || n*maxLoadDen > (1<<bits)*maxLoadNum {
		return nil, errors.New("bpe: table file truncated or corrupt")
	}
	t := &Table{
		lengths: b[headerLen : headerLen+n],
		slots:   b[headerLen+n : headerLen+n+4<<bits],
		blob:    data[headerLen+n+4<<bits:],
		offsets: make([]uint32, n+1),
		bits:    bits,
		mask:    uint32(1)<<bits - 1,
	}
	at := uint32(0)
	for i, l := range t.lengths {
		t.offsets[i] = at
		at += uint32(l)
	}
	t.offsets[n] = at
	if int(at) != len(t.blob) {
		return nil, errors.New("bpe: table file truncated or corrupt")
	}
	return t, nil
}

// Len returns the number of ranks (tokens and gaps).
func (t *Table) Len() int { return len(t.lengths) }

// Token returns the bytes of the token of rank ("" if it has none).
func (t *Table) Token(rank int) string {
	return t.blob[t.offsets[rank]:t.offsets[rank+1]]
}

// Rank returns the rank of the token whose bytes are s, if s is one.
func (t *Table) Rank(s string) (uint32, bool) {
	h := hash(s)
	fp := uint32(h >> (32 + t.bits))
	for i := uint32(h) & t.mask; ; i = (i + 1) & t.mask {
		slot := binary.LittleEndian.Uint32(t.slots[4*i:])
		if slot == empty {
			return 0, false
		}
		if slot>>t.bits == fp {
			if r := slot & t.mask; t.blob[t.offsets[r]:t.offsets[r+1]] == s {
				return r, true
			}
		}
	}
}
