package otel

import (
	"encoding/hex"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/convo-cli/convo/pkg/transcript"
)

// appendJSONHead is a request up to its first span; jsonTail follows the last.
func appendJSONHead(b []byte, res Resource) []byte {
	b = append(b, `{"resourceSpans":[{"resource":{"attributes":[`...)
	for i, a := range res.attrs() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttrJSON(b, a)
	}
	b = append(b, `]},"scopeSpans":[{"scope":{"name":"convo","version":`...)
	b = transcript.AppendString(b, res.Version)
	return append(b, `},"spans":[`...)
}

const jsonTail = `]}],"schemaUrl":"` + SchemaURL + `"}]}`

func (res Resource) attrs() []Attr {
	return []Attr{str("service.name", cmpOrS(res.ServiceName, "convo")),
		str("telemetry.sdk.name", "convo"), str("telemetry.sdk.language", "go")}
}

func appendSpanJSON(b []byte, s *Span) []byte {
	b = append(b, `{"traceId":"`...)
	b = hex.AppendEncode(b, s.Trace[:])
	b = append(b, `","spanId":"`...)
	b = hex.AppendEncode(b, s.ID[:])
	if s.Parent != (SpanID{}) {
		b = append(b, `","parentSpanId":"`...)
		b = hex.AppendEncode(b, s.Parent[:])
	}
	b = append(b, `","name":`...)
	b = transcript.AppendString(b, s.Name)
	b = append(b, `,"kind":`...)
	b = strconv.AppendInt(b, int64(s.Kind), 10)
	b = append(b, `,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.Start, 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.End, 10)
	b = append(b, `","attributes":[`...)
	for i, a := range s.Attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttrJSON(b, a)
	}
	b = append(b, ']')
	if s.Error {
		b = append(b, `,"status":{"code":2}`...)
	}
	return append(b, '}')
}

func appendAttrJSON(b []byte, a Attr) []byte {
	// Keys are convo's own names: nothing in them to escape.
	b = append(b, `{"key":"`...)
	b = append(b, a.Key...)
	b = append(b, `","value":`...)
	switch {
	case a.IsInt:
		b = append(b, `{"intValue":"`...)
		b = strconv.AppendInt(b, a.Int, 10)
		b = append(b, `"}`...)
	case a.Strs != nil:
		b = append(b, `{"arrayValue":{"values":[`...)
		for i, v := range a.Strs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stringValue":`...)
			b = transcript.AppendString(b, v)
			b = append(b, '}')
		}
		b = append(b, "]}}"...)
	default:
		b = append(b, `{"stringValue":`...)
		b = transcript.AppendString(b, a.Str)
		b = append(b, '}')
	}
	return append(b, '}')
}

// Field numbers of opentelemetry/proto/{collector/trace,trace,common,
// resource}/v1: an ExportTraceServiceRequest is a TracesData on the wire.
const (
	fReqResourceSpans = 1
	fRSResource       = 1
	fRSScopeSpans     = 2
	fRSSchemaURL      = 3
	fResAttributes    = 1
	fSSScope          = 1
	fSSSpans          = 2
	fScopeName        = 1
	fScopeVersion     = 2
	fSpanTraceID      = 1
	fSpanID           = 2
	fSpanParent       = 4
	fSpanName         = 5
	fSpanKind         = 6
	fSpanStart        = 7
	fSpanEnd          = 8
	fSpanAttributes   = 9
	fSpanStatus       = 15
	fStatusCode       = 3
	fKVKey            = 1
	fKVValue          = 2
	fAnyString        = 1
	fAnyInt           = 3
	fAnyArray         = 5
	fArrayValues      = 1
)

// appendSpanField appends s as a spans field of ScopeSpans.
func appendSpanField(b []byte, s *Span) []byte {
	var tmp [1024]byte
	return appendMessage(b, fSSSpans, appendSpanProto(tmp[:0], s))
}

// appendProtoRequest wraps the spans fields of one ScopeSpans into a
// request of one resource.
func appendProtoRequest(b []byte, res Resource, spanFields []byte) []byte {
	var scope, ss, resource, rs, tmp []byte
	scope = protowire.AppendTag(scope, fScopeName, protowire.BytesType)
	scope = protowire.AppendString(scope, "convo")
	scope = protowire.AppendTag(scope, fScopeVersion, protowire.BytesType)
	scope = protowire.AppendString(scope, res.Version)
	ss = appendMessage(ss, fSSScope, scope)
	ss = append(ss, spanFields...)
	for _, a := range res.attrs() {
		tmp = appendAttrProto(tmp[:0], a)
		resource = appendMessage(resource, fResAttributes, tmp)
	}
	rs = appendMessage(rs, fRSResource, resource)
	rs = appendMessage(rs, fRSScopeSpans, ss)
	rs = protowire.AppendTag(rs, fRSSchemaURL, protowire.BytesType)
	rs = protowire.AppendString(rs, SchemaURL)
	return appendMessage(b, fReqResourceSpans, rs)
}

func appendMessage(b []byte, field protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendSpanProto(b []byte, s *Span) []byte {
	b = protowire.AppendTag(b, fSpanTraceID, protowire.BytesType)
	b = protowire.AppendBytes(b, s.Trace[:])
	b = protowire.AppendTag(b, fSpanID, protowire.BytesType)
	b = protowire.AppendBytes(b, s.ID[:])
	if s.Parent != (SpanID{}) {
		b = protowire.AppendTag(b, fSpanParent, protowire.BytesType)
		b = protowire.AppendBytes(b, s.Parent[:])
	}
	b = protowire.AppendTag(b, fSpanName, protowire.BytesType)
	b = protowire.AppendString(b, s.Name)
	b = protowire.AppendTag(b, fSpanKind, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(s.Kind))
	b = protowire.AppendTag(b, fSpanStart, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(s.Start))
	b = protowire.AppendTag(b, fSpanEnd, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(s.End))
	var kv []byte
	for _, a := range s.Attrs {
		kv = appendAttrProto(kv[:0], a)
		b = appendMessage(b, fSpanAttributes, kv)
	}
	if s.Error {
		b = appendMessage(b, fSpanStatus, protowire.AppendVarint(protowire.AppendTag(nil, fStatusCode, protowire.VarintType), StatusError))
	}
	return b
}

func appendAttrProto(b []byte, a Attr) []byte {
	b = protowire.AppendTag(b, fKVKey, protowire.BytesType)
	b = protowire.AppendString(b, a.Key)
	var v []byte
	switch {
	case a.IsInt:
		v = protowire.AppendTag(v, fAnyInt, protowire.VarintType)
		v = protowire.AppendVarint(v, uint64(a.Int))
	case a.Strs != nil:
		var arr []byte
		for _, s := range a.Strs {
			one := protowire.AppendString(protowire.AppendTag(nil, fAnyString, protowire.BytesType), s)
			arr = appendMessage(arr, fArrayValues, one)
		}
		v = appendMessage(v, fAnyArray, arr)
	default:
		v = protowire.AppendTag(v, fAnyString, protowire.BytesType)
		v = protowire.AppendString(v, a.Str)
	}
	return appendMessage(b, fKVValue, v)
}
