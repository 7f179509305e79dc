package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestID(t *testing.T) {
	at := time.UnixMilli(1_744_815_823_000)
	id := transcript.SourceID(at, "openai", "resp_1")
	later := transcript.SourceID(at.Add(time.Hour), "x", "y") // a record stored after the body's time
	merged := transcript.Record{ID: transcript.SourceID(at, "x", "z"), Message: transcript.Message{Role: transcript.RoleAssistant}}
	merged.Metadata.Aux = map[string]json.RawMessage{"provider": json.RawMessage(`"openai"`), "response_id": json.RawMessage(`"resp_1"`)}
	for _, c := range []struct {
		name, responseID string
		before           []transcript.Record
		want             string
	}{
		{"no response id: an ordinary id", "", nil, ""},
		{"nothing known before", "resp_1", nil, id},
		{"the same answer stored at another time", "resp_1", []transcript.Record{{ID: transcript.SourceID(at.Add(-time.Minute), "openai", "resp_1")}},
			transcript.SourceID(at.Add(-time.Minute), "openai", "resp_1")},
		{"merged into another record", "resp_1", []transcript.Record{merged}, merged.ID},
		{"moved past the last record", "resp_1", []transcript.Record{{ID: later}},
			transcript.SourceID(at.Add(time.Hour+time.Millisecond), "openai", "resp_1")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ID(at, "openai", c.responseID, c.before); got != c.want {
				t.Fatalf("ID = %q, want %q", got, c.want)
			}
		})
	}
}

func TestTime(t *testing.T) {
	if got := Time(&format.Answer{}, 5); !got.Equal(time.UnixMilli(5)) {
		t.Fatalf("no provider time: %v, want now", got)
	}
	at := time.Unix(1_744_815_823, 0)
	if got := Time(&format.Answer{Created: at}, 5); !got.Equal(at) {
		t.Fatalf("provider time: %v, want %v", got, at)
	}
}

func TestTail(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if before, whole, err := Tail(ctx, s, "none"); err != nil || len(before) != 0 || !whole {
		t.Fatalf("a conversation that does not exist: %d records, whole %v, %v", len(before), whole, err)
	}
	var recs []transcript.Record
	for i := range TailLen + 1 {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		recs = append(recs, transcript.Record{Message: transcript.Message{Role: role, Contents: []string{fmt.Sprint(i)}}})
	}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(recs[:3]...)); err != nil {
		t.Fatal(err)
	}
	before, whole, err := Tail(ctx, s, "c")
	if err != nil || len(before) != 3 || !whole || before[2].Message.Contents[0] != "2" {
		t.Fatalf("3 records: %d, whole %v, %v", len(before), whole, err)
	}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(recs[3:]...)); err != nil {
		t.Fatal(err)
	}
	before, whole, err = Tail(ctx, s, "c")
	if err != nil || len(before) != TailLen || whole || before[TailLen-1].Message.Contents[0] != fmt.Sprint(TailLen) {
		t.Fatalf("%d records: read %d, whole %v, %v", TailLen+1, len(before), whole, err)
	}
}

func TestCompactionNote(t *testing.T) {
	if CompactionNote(&format.Compaction{}) == CompactionNote(&format.Compaction{Text: "t"}) {
		t.Fatal("a compaction with no readable summary is sent otherwise to other providers: the note must say so")
	}
}
