package show

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
)

// rows reads bodies, oldest first, as the store does (Limit: the newest),
// then fails with err.
type rows struct {
	bodies []string
	err    error
}

func (r rows) Read(_ context.Context, _ string, opt store.ReadOptions, fn func(store.Row) error) error {
	b := r.bodies
	if opt.Limit > 0 && len(b) > opt.Limit {
		b = b[len(b)-opt.Limit:]
	}
	for _, body := range b {
		if err := fn(store.Row{Body: []byte(body)}); err != nil {
			return err
		}
	}
	return r.err
}

func TestRecentRecords(t *testing.T) {
	user := `{"id":"01JRZJ166J2WRMF990535EVSQ1","conversation":"c","message":{"role":"user","contents":["q"]},"metadata":{"timing":{"creation":1}}}`
	answer := `{"id":"01JRZJ166J2WRMF990535EVSQ2","conversation":"c","message":{"role":"assistant","contents":["a"]},"metadata":{"timing":{"creation":2}}}`
	for _, tc := range []struct {
		name string
		s    rows
		n    int
		want []string
	}{
		{"newest first", rows{bodies: []string{user, answer}}, 20, []string{"01JRZJ166J2WRMF990535EVSQ2\tassistant", "01JRZJ166J2WRMF990535EVSQ1\tuser"}},
		{"the newest n", rows{bodies: []string{user, answer}}, 1, []string{"01JRZJ166J2WRMF990535EVSQ2\tassistant"}},
		{"a body that does not decode is left out", rows{bodies: []string{"{", answer}}, 20, []string{"01JRZJ166J2WRMF990535EVSQ2\tassistant"}},
		{"what was read before a failure", rows{bodies: []string{user}, err: errors.New("gone")}, 20, []string{"01JRZJ166J2WRMF990535EVSQ1\tuser"}},
		{"none", rows{}, 20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RecentRecords(context.Background(), tc.s, "c", tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
