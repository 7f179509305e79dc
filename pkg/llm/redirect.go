package llm

import (
	"errors"
	"net/http"
)

// keyHeaders are the headers a key travels in. net/http forwards all but
// Authorization on a redirect to another host, and Authorization too to
// another port of the same one, so a base URL that redirected elsewhere
// handed the key to whoever it named.
var keyHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key"}

// maxRedirects is net/http's own limit, kept.
const maxRedirects = 10

// keepKeysHome returns a copy of hc that follows a redirect to another
// host (or port, or scheme) without the key headers; the client's own
// redirect policy, if any, still decides whether to follow.
func keepKeysHome(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
			for _, h := range keyHeaders {
				req.Header.Del(h)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}
