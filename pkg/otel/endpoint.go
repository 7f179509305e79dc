package otel

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Endpoint is where and how spans go: the traces URL, the headers sent
// with every request, and the encoding.
type Endpoint struct {
	URL    string
	Header http.Header
	JSON   bool // http/json rather than http/protobuf
}

// UsageError is a --to or an OTEL_EXPORTER_OTLP_* value convo cannot use.
// Its text never holds a header's name or value.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// EnvEndpoint is the endpoint the OTLP exporter variables name (the
// specification's rules: a signal's own variable wins; the generic endpoint
// gets /v1/traces appended). ok is false when neither endpoint is set.
func EnvEndpoint(getenv func(string) string) (ep Endpoint, ok bool, err error) {
	raw := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if raw == "" {
		if raw = getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); raw == "" {
			return Endpoint{}, false, nil
		}
		raw = strings.TrimSuffix(raw, "/") + "/v1/traces"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Endpoint{}, true, &UsageError{"OTEL_EXPORTER_OTLP_ENDPOINT: want http://HOST:PORT or https://HOST:PORT"}
	}
	ep = Endpoint{URL: u.String()}
	return ep, true, ep.fromEnv(getenv)
}

// ParseTo reads --to otlp+http://HOST:PORT[/PATH] (or otlp+https://), or
// --to otlp for the environment's endpoint. The headers and the protocol
// come from the environment either way.
func ParseTo(to string, getenv func(string) string) (Endpoint, error) {
	if to == "otlp" {
		ep, ok, err := EnvEndpoint(getenv)
		if err == nil && !ok {
			err = &UsageError{"--to otlp: set OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT), or give otlp+http://HOST:PORT"}
		}
		return ep, err
	}
	rest, ok := strings.CutPrefix(to, "otlp+")
	u, err := url.Parse(rest)
	if !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return Endpoint{}, &UsageError{fmt.Sprintf("--to: want otlp+http://HOST:PORT[/PATH] or otlp+https://..., not %q", redactURL(to))}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	ep := Endpoint{URL: u.String()}
	return ep, ep.fromEnv(getenv)
}

// IsTo reports whether --to names an OTLP receiver.
func IsTo(to string) bool { return to == "otlp" || strings.HasPrefix(to, "otlp+") }

func (ep *Endpoint) fromEnv(getenv func(string) string) error {
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto {
	case "", "http/protobuf":
	case "http/json":
		ep.JSON = true
	default:
		return &UsageError{fmt.Sprintf("OTEL_EXPORTER_OTLP_PROTOCOL %q: convo speaks http/protobuf and http/json", proto)}
	}
	var err error
	ep.Header = http.Header{}
	for _, env := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if err = parseHeaders(getenv(env), ep.Header); err != nil {
			return &UsageError{env + ": " + err.Error()}
		}
	}
	return nil
}

// parseHeaders reads the W3C-baggage-like key=value,... list into h. Its
// errors say where, never what: values are credentials.
func parseHeaders(s string, h http.Header) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for i, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("entry %d is not key=value", i+1)
		}
		var err1, err2 error
		k, err1 = url.PathUnescape(k)
		v, err2 = url.PathUnescape(strings.TrimSpace(v))
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("entry %d is not percent-encoded", i+1)
		}
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("entry %d is no HTTP header", i+1)
		}
		h.Set(k, v)
	}
	return nil
}

func validHeaderName(k string) bool {
	for _, r := range k {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return k != ""
}

// redactURL hides a URL's user information, which may hold a password.
func redactURL(s string) string {
	if u, err := url.Parse(strings.TrimPrefix(s, "otlp+")); err == nil && u.User != nil {
		u.User = url.User("xxxxx")
		return u.String()
	}
	return s
}
