package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
)

// TestRedirectKeepsKeyHome: a base URL that redirects to another host is
// followed without the key: x-api-key (anthropic) and x-goog-api-key
// (gemini) went along, and Authorization to another port. Found by the
// adversarial sweep (a 307 from 127.0.0.1 to localhost carried the key).
func TestRedirectKeepsKeyHome(t *testing.T) {
	for _, f := range callable {
		if f.provider == "ollama" || f.provider == "bedrock" {
			continue // no key header: none, or a signature
		}
		t.Run(f.provider, func(t *testing.T) {
			s := start(t, providertest.Step{Answer: &providertest.Answer{Text: "Paris."}})
			target := s.BaseURL(f.provider)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}))
			defer front.Close()
			tu, err := url.Parse(target)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var leaked []string
			rt := roundTripper(func(r *http.Request) (*http.Response, error) {
				if r.URL.Host == tu.Host {
					for name, vs := range r.Header {
						if strings.Contains(strings.Join(vs, " "), testKey) {
							mu.Lock()
							leaked = append(leaked, name)
							mu.Unlock()
						}
					}
				}
				return http.DefaultTransport.RoundTrip(r)
			})
			c, err := New(f.provider, Options{APIKey: testKey, BaseURL: front.URL, HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			// The fake provider refuses a request without its key: that it
			// answers or not is not the point, what reached it is.
			c.Send(context.Background(), request(t, f.provider, false))
			if len(leaked) > 0 {
				t.Errorf("the key went to the other host in %v", leaked)
			}
		})
	}
}
