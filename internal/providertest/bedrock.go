package providertest

// Amazon Bedrock's Converse API, as
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
// and .../API_runtime_ConverseStream.html show it: POST
// /model/{modelId}/converse answers a JSON body, /converse-stream an AWS
// event stream (application/vnd.amazon.eventstream: binary messages, each
// with CRC-32 checksums, string headers :message-type, :event-type and
// :content-type, and a JSON payload). Requests must be signed: a missing
// Authorization header is refused as AWS refuses it, and with
// Options.Key the signature is checked, Key being the secret access key
// (or a Bedrock API key sent as a bearer token).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// BedrockStreamType is the Content-Type of a converse-stream answer.
const BedrockStreamType = "application/vnd.amazon.eventstream"

// bedrockRoute reads a Converse path: /model/{modelId}/converse or
// /converse-stream, the model id unescaped (it may hold '/' and ':').
func bedrockRoute(path string) (model string, stream, ok bool) {
	rest, found := strings.CutPrefix(path, "/model/")
	if !found {
		return "", false, false
	}
	if m, found := strings.CutSuffix(rest, "/converse-stream"); found {
		return m, true, m != ""
	}
	if m, found := strings.CutSuffix(rest, "/converse"); found {
		return m, false, m != ""
	}
	return "", false, false
}

// bedrockCheck refuses what Converse refuses: no signature, no messages,
// roles that do not alternate from the user.
func bedrockCheck(r *http.Request, req *Request) (int, string) {
	if r.Header.Get("Authorization") == "" {
		return http.StatusForbidden, "Missing Authentication Token"
	}
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		return http.StatusBadRequest, "A conversation must start with a user message. Try again with a conversation that starts with a user message."
	}
	want := "user"
	for _, m := range msgs {
		role, _ := m.(map[string]any)["role"].(string)
		if role != want {
			return http.StatusBadRequest, "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."
		}
		want = map[string]string{"user": "assistant", "assistant": "user"}[role]
	}
	return 0, ""
}

// bedrockSigned reports whether r carries key: as a bearer token (a
// Bedrock API key), or as the secret access key of a valid SigV4
// signature of service bedrock over r and body. The signature is made again
// from the headers it names and compared.
func bedrockSigned(r *http.Request, body []byte, key string) bool {
	auth := r.Header.Get("Authorization")
	if auth == "Bearer "+key {
		return true
	}
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return false
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		fields[k] = v
	}
	// Credential=AKID/20250102/us-east-1/bedrock/aws4_request
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[3] != "bedrock" || scope[4] != "aws4_request" {
		return false
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return false
	}
	u := *r.URL
	again := &http.Request{Method: r.Method, URL: &u, Host: r.Host, ContentLength: r.ContentLength, Header: http.Header{}}
	for _, h := range strings.Split(fields["SignedHeaders"], ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: scope[0], SecretAccessKey: key, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", scope[2], at); err != nil {
		return false
	}
	return again.Header.Get("Authorization") == auth
}

// bedrockErrorTypes name the exception of each status, sent in
// X-Amzn-ErrorType.
var bedrockErrorTypes = map[int]string{
	400: "ValidationException", 403: "AccessDeniedException", 404: "ResourceNotFoundException",
	408: "ModelTimeoutException", 424: "ModelErrorException", 429: "ThrottlingException",
	500: "InternalServerException", 503: "ServiceUnavailableException",
}

// bedrockErrorHeader adds the X-Amzn-ErrorType of status to h.
func bedrockErrorHeader(status int, h map[string]string) map[string]string {
	out := map[string]string{"X-Amzn-ErrorType": cmpStr(bedrockErrorTypes[status], "InternalServerException") + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}
	for k, v := range h {
		out[k] = v
	}
	return out
}

func bedrockFinish(a *Answer) string {
	switch {
	case a.Finish != "":
		return a.Finish
	case len(a.Calls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

var bedrockUsage = map[string]any{"inputTokens": 19, "outputTokens": 10, "totalTokens": 29}

func bedrockBody(a *Answer) map[string]any {
	content := []any{}
	if a.Text != "" {
		content = append(content, map[string]any{"text": a.Text})
	}
	for _, c := range a.Calls {
		content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name, "input": json.RawMessage(cmpStr(c.Args, "{}"))}})
	}
	return map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": bedrockFinish(a), "usage": bedrockUsage, "metrics": map[string]any{"latencyMs": 420},
	}
}

// bedrockStream is a's converse-stream answer: text blocks have no
// contentBlockStart, as Bedrock sends them; each payload carries the
// random "p" padding Bedrock adds.
func bedrockStream(a *Answer) string {
	var b bytes.Buffer
	event := func(kind string, payload map[string]any) {
		payload["p"] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"[:len(kind)]
		b.Write(EventMessage(map[string]string{":event-type": kind, ":content-type": "application/json", ":message-type": "event"}, []byte(mustJSON(payload))))
	}
	event("messageStart", map[string]any{"role": "assistant"})
	i := 0
	if a.Text != "" {
		for _, p := range halves(a.Text) {
			event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": p}})
		}
		event("contentBlockStop", map[string]any{"contentBlockIndex": i})
		i++
	}
	for _, c := range a.Calls {
		event("contentBlockStart", map[string]any{"contentBlockIndex": i, "start": map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name}}})
		for _, p := range halves(cmpStr(c.Args, "{}")) {
			event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": p}}})
		}
		event("contentBlockStop", map[string]any{"contentBlockIndex": i})
		i++
	}
	event("messageStop", map[string]any{"stopReason": bedrockFinish(a)})
	event("metadata", map[string]any{"usage": bedrockUsage, "metrics": map[string]any{"latencyMs": 420}})
	return b.String()
}

// BedrockException is a converse-stream message reporting an exception
// (throttlingException, modelStreamErrorException...) with msg.
func BedrockException(kind, msg string) []byte {
	return EventMessage(map[string]string{":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"},
		[]byte(mustJSON(map[string]any{"message": msg})))
}

// EventMessage encodes one AWS event stream message with string headers.
func EventMessage(headers map[string]string, payload []byte) []byte {
	var h []byte
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		h = append(h, byte(len(name)))
		h = append(h, name...)
		h = append(h, 7) // string
		h = binary.BigEndian.AppendUint16(h, uint16(len(headers[name])))
		h = append(h, headers[name]...)
	}
	return EventMessageRaw(h, payload)
}

// EventMessageRaw frames encoded headers and a payload as one event stream
// message: the prelude (total and headers lengths, their CRC-32), the
// headers, the payload, and the CRC-32 of the whole.
func EventMessageRaw(headers, payload []byte) []byte {
	total := 12 + len(headers) + len(payload) + 4
	msg := binary.BigEndian.AppendUint32(nil, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(headers)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(msg, headers...)
	msg = append(msg, payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}
