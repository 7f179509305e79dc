package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds a response body read into memory: far above any real
// answer, low enough that a runaway server cannot exhaust memory.
const maxBody = 64 << 20

// endpoint joins a base URL and a path without doubling or dropping the
// slash between them.
func endpoint(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}

// postJSON makes one attempt: it POSTs body (already JSON) to url and returns
// the body of a 2xx response. Any other status is an *Error whose message
// errMessage finds in the provider's error body.
func postJSON(ctx context.Context, hc *http.Client, provider, url string, header http.Header, body []byte, errMessage func([]byte) string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Provider: provider, Message: "bad base URL", Err: err}
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return nil, err // run classifies it
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, statusError(provider, res.StatusCode, res.Header, errMessage(data))
	}
	return data, nil
}

// badBody is the *Error of a 2xx response whose body is not the JSON the
// provider documents (a proxy's HTML page, a truncated body...).
func badBody(provider string, err error) *Error {
	return &Error{Provider: provider, Status: http.StatusOK, Message: fmt.Sprintf("response body does not decode: %v", err), Err: err}
}
