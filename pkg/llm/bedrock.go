package llm

// The Amazon Bedrock Converse transport:
//   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
//   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
// POST {base}/model/{modelId}/converse, or /converse-stream for a stream,
// the body pkg/format rendered (the model is in the path, escaped as the
// AWS SDKs escape it: ':' of a version and '/' of an ARN included). The
// base is https://bedrock-runtime.{region}.amazonaws.com unless
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME or --base-url names another.
//
// Authentication: Signature Version 4 (service "bedrock") through
// aws-sdk-go-v2's signer, with the region and credentials of the AWS chain
// (environment, shared config and credentials files, SSO, the instance
// role) as every AWS SDK reads them; or a Bedrock API key
// (AWS_BEARER_TOKEN_BEDROCK) sent as a bearer token, as the SDKs do when it
// is set.
//
// Errors are {"message": "..."} with the exception's name in the
// X-Amzn-ErrorType header: 400 ValidationException, 403
// AccessDeniedException, 404 ResourceNotFoundException, 408
// ModelTimeoutException, 424 ModelErrorException, 429 ThrottlingException,
// 500 InternalServerException, 503 ServiceUnavailableException.
//
// A stream is an AWS event stream (eventstream.go) of events named by
// their :event-type header, each payload one JSON object: messageStart
// {role}, contentBlockStart {contentBlockIndex, start: {toolUse: {toolUseId,
// name}}}, contentBlockDelta {contentBlockIndex, delta: {text} |
// {toolUse: {input: a piece of JSON text}} | {reasoningContent: {text} |
// {signature} | {redactedContent}}}, contentBlockStop, messageStop
// {stopReason, additionalModelResponseFields}, metadata {usage, metrics,
// trace}. A failure inside the stream is a message of :message-type
// "exception" named by :exception-type (throttlingException,
// modelStreamErrorException...), or "error" with :error-code and
// :error-message headers.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/convo-cli/convo/pkg/format"
)

// bedrockService is the name Bedrock's runtime signs requests under.
const bedrockService = "bedrock"

type bedrock struct {
	opts   Options
	base   string
	region string
	// creds sign each request; nil when a bearer key (header) is sent
	// instead.
	creds  aws.CredentialsProvider
	header http.Header
	signer *v4.Signer
}

// newBedrock returns the Converse transport. With opts.APIKey, the key is
// sent as a bearer token; without, requests are signed with opts.Credentials
// or the AWS chain's, which must yield some: their absence is an error
// wrapping ErrMissingKey, found here rather than on every request.
func newBedrock(p format.Provider, opts Options) (Transport, error) {
	b := &bedrock{opts: opts, region: opts.Region, creds: opts.Credentials, header: bearer(opts.APIKey), signer: v4.NewSigner()}
	sign := opts.APIKey == ""
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout())
	defer cancel()
	if b.region == "" && (sign || opts.BaseURL == "") || sign && b.creds == nil {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("bedrock: AWS configuration: %w", err)
		}
		b.region = cmp.Or(b.region, cfg.Region)
		if b.creds == nil {
			b.creds = cfg.Credentials
		}
	}
	if b.region == "" && (sign || opts.BaseURL == "") {
		return nil, errors.New("bedrock: no AWS region (set AWS_REGION, or region in the AWS_PROFILE's config)")
	}
	if !sign {
		b.creds = nil
	} else {
		if _, cached := b.creds.(*aws.CredentialsCache); !cached {
			b.creds = aws.NewCredentialsCache(b.creds)
		}
		creds, err := b.creds.Retrieve(ctx)
		if err != nil {
			return nil, &missingCredentials{err: err}
		}
		// Hidden like an API key, wherever a reply might echo them.
		b.opts.Secrets = append(slices.Clip(b.opts.Secrets), creds.SecretAccessKey, creds.SessionToken)
	}
	if opts.BaseURL == "" {
		opts.BaseURL = strings.ReplaceAll(p.BaseURL, "{region}", b.region)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	b.base = base
	return b, nil
}

// missingCredentials is the error of a signing transport without AWS
// credentials; it wraps ErrMissingKey, and the chain's own reason.
type missingCredentials struct{ err error }

func (e *missingCredentials) Error() string {
	return "bedrock: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK): " + e.err.Error()
}

func (e *missingCredentials) Unwrap() []error { return []error{ErrMissingKey, e.err} }

func (b *bedrock) Name() string { return "bedrock" }

// Send implements Transport.
func (b *bedrock) Send(ctx context.Context, c Call) (Reply, error) {
	if c.Model == "" {
		return Reply{}, errors.New("bedrock: no model given")
	}
	operation, accept := "converse", "application/json"
	if c.OnText != nil {
		operation, accept = "converse-stream", "application/vnd.amazon.eventstream"
	}
	url := endpoint(b.base, "model/"+awsPathEscape(c.Model)+"/"+operation)
	hc := b.opts.httpClient()
	return b.opts.send(ctx, "bedrock", c, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		res, err := b.post(ctx, hc, url, accept, c.Body)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		if onText == nil {
			return io.ReadAll(io.LimitReader(res.Body, maxBody))
		}
		return assembleBedrock(progressReader{res.Body, progress}, onText)
	})
}

// post makes one attempt, signed, and returns the response of a 2xx
// status, its body still to read; any other status is a
// *format.ProviderError.
func (b *bedrock) post(ctx context.Context, hc *http.Client, url, accept string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &format.ProviderError{Provider: "bedrock", Message: "bad base URL", Err: err}
	}
	req.Header = b.header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if b.creds != nil {
		creds, err := b.creds.Retrieve(ctx)
		if err != nil {
			// Expired SSO session, a role that cannot be assumed: waiting
			// will not mend it.
			return nil, &format.ProviderError{Provider: "bedrock", Message: "AWS credentials: " + err.Error(), Err: err}
		}
		sum := sha256.Sum256(body)
		if err := b.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), bedrockService, b.region, time.Now()); err != nil {
			return nil, &format.ProviderError{Provider: "bedrock", Message: "signing the request: " + err.Error(), Err: err}
		}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err // run classifies it
	}
	if res.StatusCode >= 200 && res.StatusCode <= 299 {
		return res, nil
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return nil, err
	}
	e := statusError("bedrock", res.StatusCode, res.Header, data)
	kind := bedrockErrorType(res.Header.Get("X-Amzn-Errortype"))
	var errBody struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &errBody) == nil && errBody.Message == "" && kind != "" {
		e.Message = kind
	}
	if kind == "ModelTimeoutException" || res.StatusCode == http.StatusRequestTimeout {
		// "The request took too long to process": a later attempt may not.
		e.Retryable = true
	}
	return nil, e
}

// bedrockErrorType is the exception's name of an X-Amzn-ErrorType header
// ("ThrottlingException:http://internal.amazon.com/...").
func bedrockErrorType(h string) string {
	kind, _, _ := strings.Cut(h, ":")
	return strings.TrimSpace(kind)
}

// awsPathEscape escapes a path segment as the AWS SDKs do: every byte but
// the unreserved ones of RFC 3986 is percent-encoded.
func awsPathEscape(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// assembleBedrock reads a converse-stream answer, passing its text on, and
// returns the body Converse returns for the same request.
func assembleBedrock(r io.Reader, onText func(string)) ([]byte, error) {
	var asm bedrockStream
	err := readEventStream(r, func(m eventMessage) error { return asm.add(m, onText) })
	if errors.Is(err, errEventStream) {
		return nil, badStream("bedrock", err)
	}
	if err != nil {
		return nil, err
	}
	if !asm.stopped {
		return nil, errTruncated
	}
	return asm.body()
}

// bedrockBlock is one content block being assembled from its deltas.
type bedrockBlock struct {
	index                       int
	text, input                 strings.Builder
	reasoning, signature        strings.Builder
	redacted                    []byte
	toolUseID, name             string
	toolUse, isText, isThinking bool
}

// bedrockStream assembles the events of a converse-stream answer.
type bedrockStream struct {
	role       string
	blocks     []*bedrockBlock
	stopReason string
	additional json.RawMessage
	usage      json.RawMessage
	metrics    json.RawMessage
	trace      json.RawMessage
	stopped    bool
}

func (s *bedrockStream) block(i int) *bedrockBlock {
	for _, b := range s.blocks {
		if b.index == i {
			return b
		}
	}
	b := &bedrockBlock{index: i}
	s.blocks = append(s.blocks, b)
	return b
}

// bedrockRetryable are the exceptions of a stream that a later attempt may
// not meet.
var bedrockRetryable = map[string]bool{
	"throttlingException": true, "serviceUnavailableException": true,
	"internalServerException": true, "modelStreamErrorException": true,
}

func (s *bedrockStream) add(m eventMessage, onText func(string)) error {
	switch m.headers[":message-type"] {
	case "event":
	case "exception":
		kind := m.headers[":exception-type"]
		msg, _ := format.ErrorMessage(m.payload)
		return &format.ProviderError{Provider: "bedrock", Status: http.StatusOK, Message: cmp.Or(msg, kind), Retryable: bedrockRetryable[kind]}
	case "error":
		return &format.ProviderError{Provider: "bedrock", Status: http.StatusOK,
			Message: cmp.Or(m.headers[":error-message"], m.headers[":error-code"], "stream error")}
	default:
		return badStream("bedrock", fmt.Errorf("event of :message-type %q", m.headers[":message-type"]))
	}
	var ev struct {
		Role              string          `json:"role"`
		ContentBlockIndex int             `json:"contentBlockIndex"`
		StopReason        string          `json:"stopReason"`
		Additional        json.RawMessage `json:"additionalModelResponseFields"`
		Usage             json.RawMessage `json:"usage"`
		Metrics           json.RawMessage `json:"metrics"`
		Trace             json.RawMessage `json:"trace"`
		Start             struct {
			ToolUse *struct {
				ToolUseID string `json:"toolUseId"`
				Name      string `json:"name"`
			} `json:"toolUse"`
		} `json:"start"`
		Delta struct {
			Text    *string `json:"text"`
			ToolUse *struct {
				Input string `json:"input"`
			} `json:"toolUse"`
			Reasoning *struct {
				Text      *string `json:"text"`
				Signature *string `json:"signature"`
				Redacted  *string `json:"redactedContent"`
			} `json:"reasoningContent"`
		} `json:"delta"`
	}
	if err := json.Unmarshal(m.payload, &ev); err != nil {
		return badStream("bedrock", err)
	}
	switch m.headers[":event-type"] {
	case "messageStart":
		s.role = ev.Role
	case "contentBlockStart":
		if tu := ev.Start.ToolUse; tu != nil {
			b := s.block(ev.ContentBlockIndex)
			b.toolUse, b.toolUseID, b.name = true, tu.ToolUseID, tu.Name
		}
	case "contentBlockDelta":
		b := s.block(ev.ContentBlockIndex)
		d := ev.Delta
		switch {
		case d.Text != nil:
			b.isText = true
			b.text.WriteString(*d.Text)
			onText(*d.Text)
		case d.ToolUse != nil:
			b.input.WriteString(d.ToolUse.Input)
		case d.Reasoning != nil:
			b.isThinking = true
			if d.Reasoning.Text != nil {
				b.reasoning.WriteString(*d.Reasoning.Text)
			}
			if d.Reasoning.Signature != nil {
				b.signature.WriteString(*d.Reasoning.Signature)
			}
			if d.Reasoning.Redacted != nil {
				// A blob, base64 in JSON: each piece decodes on its own.
				raw, err := base64.StdEncoding.DecodeString(*d.Reasoning.Redacted)
				if err != nil {
					return badStream("bedrock", err)
				}
				b.redacted = append(b.redacted, raw...)
			}
		}
	case "messageStop":
		s.stopped, s.stopReason, s.additional = true, ev.StopReason, ev.Additional
	case "metadata":
		s.usage, s.metrics, s.trace = ev.Usage, ev.Metrics, ev.Trace
	}
	return nil
}

// body is the Converse response: {"output":{"message":{"role","content"}},
// "stopReason","usage","metrics"...}, the content blocks in their index
// order.
func (s *bedrockStream) body() ([]byte, error) {
	slices.SortStableFunc(s.blocks, func(a, b *bedrockBlock) int { return a.index - b.index })
	content := make([]any, 0, len(s.blocks))
	for _, b := range s.blocks {
		switch {
		case b.toolUse:
			in := strings.TrimSpace(b.input.String())
			if in == "" {
				in = "{}"
			}
			if !json.Valid([]byte(in)) {
				return nil, &format.ProviderError{Provider: "bedrock", Status: http.StatusOK, Message: fmt.Sprintf("stream: tool input is not JSON: %.200s", in)}
			}
			content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": b.toolUseID, "name": b.name, "input": json.RawMessage(in)}})
		case b.isThinking && len(b.redacted) > 0:
			content = append(content, map[string]any{"reasoningContent": map[string]any{"redactedContent": b.redacted}})
		case b.isThinking:
			rt := map[string]any{"text": b.reasoning.String()}
			if b.signature.Len() > 0 {
				rt["signature"] = b.signature.String()
			}
			content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": rt}})
		case b.isText:
			content = append(content, map[string]any{"text": b.text.String()})
		}
	}
	out := map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": cmp.Or(s.role, "assistant"), "content": content}},
		"stopReason": s.stopReason,
	}
	for k, v := range map[string]json.RawMessage{"usage": s.usage, "metrics": s.metrics, "trace": s.trace, "additionalModelResponseFields": s.additional} {
		if len(v) > 0 && string(v) != "null" {
			out[k] = v
		}
	}
	return format.MarshalNoEscape(out)
}
