package ask

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

// render --full's input from stdin: every record but the summaries.
func TestFullHistoryFromStdin(t *testing.T) {
	in := `{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"user","contents":["a"]},"metadata":{"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSQ4","message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQ1"],"timing":{"creation":4}}}
{"role":"assistant","content":"b"}
`
	r := FullHistory(context.Background(), nil, "", strings.NewReader(in), func(int, string) {})
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "\n"); n != 2 || strings.Contains(string(out), `"summary"`) {
		t.Fatalf("history %q: want the 2 messages, no summary", out)
	}
}

// A stored conversation's records but its summaries.
func TestFullHistoryStored(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs := []transcript.Record{
		{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"a"}}},
		{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"b"}}},
	}
	res, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	_ = s.Read(ctx, "c", store.ReadOptions{}, func(r store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(r.Body, &rec); err != nil {
			return err
		}
		ids = append(ids, rec.ID)
		return nil
	})
	sum := transcript.Record{Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"s"}}}
	sum.Metadata.SummaryIDs = ids
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(sum)); err != nil || res.Inserted != 2 {
		t.Fatal(err, res)
	}
	r := FullHistory(ctx, s, "c", nil, nil)
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "\n"); n != 2 || strings.Contains(string(out), `"summary"`) {
		t.Fatalf("history %q: want the 2 records, no summary", out)
	}
}
