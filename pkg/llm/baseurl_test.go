package llm

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
)

// TestBaseURLQuery: a base URL with a query string (Azure's
// ?api-version=, a gateway's key) gets the endpoint's path joined before
// the query, and the query is sent as given, with every request, streamed
// or not, of every provider that takes --base-url (issue 27 item 22).
func TestBaseURLQuery(t *testing.T) {
	const query = "api-version=2024-10-21&tag=a%2Fb"
	for _, f := range callable {
		t.Run(f.provider, func(t *testing.T) {
			s := start(t, providertest.Step{Answer: &providertest.Answer{Text: "Paris."}})
			var mu sync.Mutex
			var sent []*url.URL
			rt := roundTripper(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				sent = append(sent, r.URL)
				mu.Unlock()
				return http.DefaultTransport.RoundTrip(r)
			})
			o := Options{HTTPClient: &http.Client{Transport: rt}}
			switch f.provider {
			case "ollama":
			case "bedrock":
				o.Region, o.Credentials = "us-east-1", staticCredentials(testKey)
			default:
				o.APIKey = testKey
			}
			o.BaseURL = s.BaseURL(f.provider) + "/?" + query + "#frag"
			c, err := New(f.provider, o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Send(context.Background(), request(t, f.provider, false)); err != nil {
				t.Fatalf("%s: %v", o.BaseURL, err)
			}
			call := request(t, f.provider, true)
			call.OnText = func(string) {}
			if _, err := c.Send(context.Background(), call); err != nil {
				t.Fatalf("%s, streamed: %v", o.BaseURL, err)
			}
			if len(sent) != 2 {
				t.Fatalf("%d requests", len(sent))
			}
			for i, want := range []string{f.path, f.streamPath} {
				u := sent[i]
				if u.Path != want || !strings.HasPrefix(u.RawQuery, query) || u.Fragment != "" {
					t.Errorf("request %d went to %s (path %s, query %s), want the path %s and the query %s", i, u, u.Path, u.RawQuery, want, query)
				}
			}
			// The SDK's own query stays beside the base URL's.
			if f.provider == "gemini" && !strings.Contains(sent[1].RawQuery, "alt=sse") {
				t.Errorf("stream query %s lacks alt=sse", sent[1].RawQuery)
			}
		})
	}
}

// endpoint joins the path before the query, never after it.
func TestEndpoint(t *testing.T) {
	for _, c := range []struct{ base, path, want string }{
		{"https://x.example/v1", "chat/completions", "https://x.example/v1/chat/completions"},
		{"https://x.example/v1/", "/chat/completions", "https://x.example/v1/chat/completions"},
		{"https://x.example/v1?api-version=2024", "chat/completions", "https://x.example/v1/chat/completions?api-version=2024"},
		{"https://x.example/v1/?a=1&b=2", "responses", "https://x.example/v1/responses?a=1&b=2"},
		{"https://x.example/v1?", "responses", "https://x.example/v1/responses"},
		{"https://x.example#top", "v1/messages", "https://x.example/v1/messages"},
		{"https://x.example?k=1#top", "v1/messages", "https://x.example/v1/messages?k=1"},
	} {
		if got := endpoint(c.base, c.path); got != c.want {
			t.Errorf("endpoint(%q, %q) = %q, want %q", c.base, c.path, got, c.want)
		}
	}
}

// FuzzEndpoint: whatever the base, the path lands before the query, which
// is kept as given, and a URL that parses still parses, to the same host
// and query.
func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{"https://x.example/v1", "https://x.example/v1/?api-version=2024&k=a%2Fb", "http://[::1]:8080?x#y", "https://x.example#a?b", "?", "/v1?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		got := endpoint(base, "v1/messages")
		root, query := splitQuery(base)
		if !strings.HasSuffix(got, "/v1/messages"+query) || strings.Contains(query, "#") {
			t.Fatalf("endpoint(%q) = %q: the path is not before the query %q", base, got, query)
		}
		if !strings.HasPrefix(got, strings.TrimRight(root, "/")) {
			t.Fatalf("endpoint(%q) = %q: the root %q is changed", base, got, root)
		}
		b, err := url.Parse(base)
		if err != nil || b.Host == "" || b.Opaque != "" || strings.Contains(b.Path, "?") {
			return
		}
		u, err := url.Parse(got)
		if err != nil || u.Host != b.Host || u.RawQuery != b.RawQuery || !strings.HasSuffix(u.Path, "/v1/messages") {
			t.Fatalf("endpoint(%q) = %q (%v): host %q query %q path %q", base, got, err, u.Host, u.RawQuery, u.Path)
		}
	})
}
