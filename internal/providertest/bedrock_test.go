package providertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// TestBedrock: Converse requests must be signed (with Options.Key as the
// secret access key); converse-stream answers an event stream.
func TestBedrock(t *testing.T) {
	const secret = "aws-secret-KEY"
	s := Start(Options{Key: secret, Steps: []Step{{Answer: &Answer{Text: "Paris."}}}})
	defer s.Close()
	body := `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
	send := func(path, secret string, sign bool) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sign {
			sum := sha256.Sum256([]byte(body))
			creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: secret}
			if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "bedrock", "us-east-1", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	const path = "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"
	if res, b := send(path, secret, false); res.StatusCode != 403 || !strings.Contains(b, "Missing Authentication Token") || !strings.HasPrefix(res.Header.Get("X-Amzn-ErrorType"), "AccessDeniedException") {
		t.Errorf("unsigned: %d %s", res.StatusCode, b)
	}
	if res, b := send(path, "other", true); res.StatusCode != 403 || !strings.Contains(b, "signature") {
		t.Errorf("wrong secret: %d %s", res.StatusCode, b)
	}
	if res, b := send(path, secret, true); res.StatusCode != 200 || !strings.Contains(b, `"text":"Paris."`) {
		t.Errorf("signed: %d %s", res.StatusCode, b)
	}
	res, b := send(strings.Replace(path, "converse", "converse-stream", 1), secret, true)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != BedrockStreamType || !bytes.Contains([]byte(b), []byte(":event-type")) {
		t.Errorf("stream: %d %q", res.StatusCode, b)
	}
	reqs := s.Requests()
	if r := reqs[len(reqs)-1]; r.Provider != "bedrock" || !r.Stream || r.Model != "anthropic.claude-3-haiku-20240307-v1:0" || r.Header.Get("Authorization") != "AWS4-HMAC-SHA256 [SECRET]" {
		t.Errorf("recorded %+v", r)
	}
}
