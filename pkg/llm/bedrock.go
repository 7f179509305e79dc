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
