package otel

// AppendJSON appends spans as one OTLP/JSON ExportTraceServiceRequest (the
// OTLP/JSON rules: hex ids, enums as integers, lowerCamelCase keys, 64-bit
// integers as decimal strings) of one resource and one scope.
func AppendJSON(b []byte, res Resource, spans []Span) []byte {
	b = appendJSONHead(b, res)
	for i := range spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSpanJSON(b, &spans[i])
	}
	return append(b, jsonTail...)
}

// AppendProto appends spans as one ExportTraceServiceRequest in protobuf,
// the same request AppendJSON writes.
func AppendProto(b []byte, res Resource, spans []Span) []byte {
	var fields []byte
	for i := range spans {
		fields = appendSpanField(fields, &spans[i])
	}
	return appendProtoRequest(b, res, fields)
}
