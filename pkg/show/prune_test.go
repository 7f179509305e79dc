package show

import (
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
)

// The tally names the pending batch requests dropped by age, and says a
// dry run drops none.
func TestPruneBatchDropped(t *testing.T) {
	for dry, want := range map[bool]string{
		false: "; 2 pending batch request(s) written over 30 days ago dropped\n",
		true:  " (dry run: nothing changed); 2 pending batch request(s) written over 30 days ago would be dropped\n",
	} {
		var out strings.Builder
		if err := Prune(&out, store.PruneResult{BatchDropped: 2}, dry, "30 days"); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), want) {
			t.Errorf("dry run %v: %q, want it to end %q", dry, out.String(), want)
		}
	}
}
