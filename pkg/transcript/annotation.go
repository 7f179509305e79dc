package transcript

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Annotation is a change to the metadata of a stored record (annotate):
// timing keys to set, aux keys to set and aux keys to remove. The message
// is never touched, so the rules of SPEC section 2 hold as they did.
type Annotation struct {
	Timing   map[string]int64
	Aux      map[string]json.RawMessage
	UnsetAux []string
}

// Empty reports whether the annotation changes nothing.
func (a *Annotation) Empty() bool {
	return len(a.Timing) == 0 && len(a.Aux) == 0 && len(a.UnsetAux) == 0
}

// Apply changes r's metadata. An unknown timing key is an *InputError and
// leaves r unchanged. Aux keys are unset before they are set, so
// --unset-aux k --aux k=v leaves k=v.
func (a *Annotation) Apply(r *Record) error {
	probe := r.Metadata.Timing
	for _, k := range slices.Sorted(maps.Keys(a.Timing)) {
		if err := probe.Set(k, a.Timing[k]); err != nil {
			return fieldErr("metadata.timing", "%v", err)
		}
		if a.Timing[k] < 0 {
			return fieldErr("metadata.timing."+k, "negative time")
		}
	}
	r.Metadata.Timing = probe
	for _, k := range a.UnsetAux {
		delete(r.Metadata.Aux, k)
	}
	if len(a.Aux) > 0 && r.Metadata.Aux == nil {
		r.Metadata.Aux = make(map[string]json.RawMessage, len(a.Aux))
	}
	for k, v := range a.Aux {
		r.Metadata.Aux[k] = v
	}
	if len(r.Metadata.Aux) == 0 {
		r.Metadata.Aux = nil
	}
	return nil
}

// ParseAnnotation reads an annotation as a command line gives it: timing
// as KEY=MS (ms since the epoch, or now), aux as KEY=JSON, and the aux keys
// to remove. An unknown timing key is an *InputError, as it is in a record;
// any other mistake is a plain error naming the flag (a usage error).
func ParseAnnotation(timing, aux, unsetAux []string, now int64) (*Annotation, error) {
	an := &Annotation{Timing: map[string]int64{}, Aux: map[string]json.RawMessage{}}
	for _, kv := range timing {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--timing %q: want KEY=MS", kv)
		}
		var probe Timing
		if err := probe.Set(k, 0); err != nil {
			return nil, &InputError{Field: "--timing", Err: err}
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if v == "now" {
			ms, err = now, nil
		}
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("--timing %s: want milliseconds since the epoch or now, got %q", k, v)
		}
		an.Timing[k] = ms
	}
	for _, kv := range aux {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--aux %q: want KEY=JSON", kv)
		}
		c, err := CompactJSON([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("--aux %s: %v (quote strings: --aux %s='\"text\"')", k, err, k)
		}
		an.Aux[k] = c
	}
	for _, k := range unsetAux {
		if k == "" {
			return nil, fmt.Errorf("--unset-aux: want a KEY")
		}
		an.UnsetAux = append(an.UnsetAux, k)
	}
	return an, nil
}
