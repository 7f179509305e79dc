// Package otel turns canonical records into OpenTelemetry spans that follow
// the GenAI semantic conventions (docs/export.md holds the mapping and the
// release followed), encodes them as OTLP/JSON and OTLP protobuf, and sends
// them to an OTLP/HTTP receiver. The encoders are written against the OTLP
// wire format with protowire rather than by linking the collector's pdata:
// its package initialisers cost more at start-up than convo allows (see the
// commit that brought this package).
package otel

import (
	"crypto/sha256"
)

// SemconvVersion is the semantic-conventions release whose GenAI names the
// spans use; SchemaURL is its schema.
const (
	SemconvVersion = "1.41.0"
	SchemaURL      = "https://opentelemetry.io/schemas/" + SemconvVersion
)

// Span kinds and status codes, as OTLP numbers them.
const (
	KindInternal = 1
	KindClient   = 3

	StatusError = 2
)

// TraceID and SpanID are OTLP's ids.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// Attr is one attribute: a string, an int or a list of strings.
type Attr struct {
	Key   string
	Str   string
	Int   int64
	IsInt bool
	Strs  []string // a list when not nil
}

// Span is one span as convo makes it: no events, no links.
type Span struct {
	Trace      TraceID
	ID, Parent SpanID // Parent is zero for a root span
	Name       string
	Kind       int
	Start, End int64 // nanoseconds since the epoch
	Attrs      []Attr
	Error      bool // status ERROR
}

// Clone is a copy of s that shares nothing the Converter reuses: the
// Converter hands out one Span, filled anew for every record.
func (s *Span) Clone() Span {
	c := *s
	c.Attrs = append([]Attr(nil), s.Attrs...)
	for i, a := range c.Attrs {
		if a.Strs != nil {
			c.Attrs[i].Strs = append([]string(nil), a.Strs...)
		}
	}
	return c
}

// size is about what s takes encoded: a batch closes on it.
func (s *Span) size() int {
	n := 120 + len(s.Name)
	for _, a := range s.Attrs {
		n += len(a.Key) + len(a.Str) + 16
		for _, v := range a.Strs {
			n += len(v) + 4
		}
	}
	return n
}

// TraceOf is the trace of a conversation: the same conversation is the same
// trace in every export.
func TraceOf(conversation string) TraceID {
	h := sha256.New()
	h.Write([]byte("convo/trace\x00"))
	h.Write([]byte(conversation))
	var id TraceID
	copy(id[:], h.Sum(nil))
	return id
}

// SpanOf is the span of a record (a tool result's is its execute_tool span).
func SpanOf(conversation, record string) SpanID {
	var buf [320]byte // most keys fit: no allocation per span
	key := append(append(append(append(buf[:0], "convo/span\x00"...), conversation...), 0), record...)
	sum := sha256.Sum256(key)
	var id SpanID
	copy(id[:], sum[:])
	return id
}

// Resource is what the one resource of a run says of it.
type Resource struct {
	ServiceName string // service.name
	Version     string // the scope's version: convo's
}

func str(k, v string) Attr       { return Attr{Key: k, Str: v} }
func num(k string, v int64) Attr { return Attr{Key: k, Int: v, IsInt: true} }
