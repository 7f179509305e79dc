package answer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

func answerOf(responseID string, contents ...string) *format.Answer {
	return &format.Answer{ResponseID: responseID,
		Record: transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: contents}}}
}

func TestRecord(t *testing.T) {
	pass := func(*transcript.Record) error { return nil }
	for _, tc := range []struct {
		name    string
		ans     *format.Answer
		an      transcript.Annotation
		guard   func(*transcript.Record) error
		llmEnd  int64
		wantErr string
	}{
		{"llmEnd is when the body was read", answerOf("r", "hi"), transcript.Annotation{}, pass, 7, ""},
		{"--timing says otherwise", answerOf("r", "hi"), transcript.Annotation{Timing: map[string]int64{"llmEnd": 5}}, pass, 5, ""},
		{"a key refused", answerOf("r", "hi"), transcript.Annotation{}, func(*transcript.Record) error { return errors.New("holds a key") },
			0, "openai answer: holds a key; nothing appended"},
		{"an unknown timing key", answerOf("r", "hi"), transcript.Annotation{Timing: map[string]int64{"nope": 1}}, pass, 0, "nope"},
		{"no answer to store", answerOf("r"), transcript.Annotation{}, pass, 0, "contents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := Record("openai", tc.ans, &tc.an, tc.guard, 7)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if end := rec.Metadata.Timing.LLMEnd; end == nil || *end != tc.llmEnd || rec.Message.Contents[0] != "hi" {
				t.Fatalf("llmEnd %v, contents %q; want %d, [hi]", end, rec.Message.Contents, tc.llmEnd)
			}
		})
	}
}

func TestAlone(t *testing.T) {
	newID := func() string { return "01ORDINARY" }
	for _, tc := range []struct {
		name, responseID, want string
	}{
		{"a response id makes the id", "resp_1", transcript.SourceID(time.UnixMilli(9), "openai", "resp_1")},
		{"none: an ordinary id", "", "01ORDINARY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := answerOf(tc.responseID, "hi")
			rec := Alone(ans.Record, "openai", ans, newID, 9)
			if rec.ID != tc.want || rec.Conversation != transcript.DefaultConversation || rec.Metadata.Timing.Creation != 9 {
				t.Fatalf("id %q, conversation %q, created %d; want %q, %q, 9", rec.ID, rec.Conversation, rec.Metadata.Timing.Creation, tc.want, transcript.DefaultConversation)
			}
		})
	}
}

func TestPlace(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	later := transcript.SourceID(time.UnixMilli(1_000_000), "x", "y") // stored after the body's time
	user := transcript.Record{ID: later, Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"q"}}}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(user)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, conv, responseID, want string
	}{
		{"no response id: the id stays", "c", "", "KEPT"},
		{"a conversation not stored: the response's id", "none", "resp_1", transcript.SourceID(time.UnixMilli(9), "openai", "resp_1")},
		{"moved past the last record", "c", "resp_1", transcript.SourceID(time.UnixMilli(1_000_001), "openai", "resp_1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := answerOf(tc.responseID, "hi")
			rec := ans.Record
			rec.ID = "KEPT"
			if err := Place(ctx, s, tc.conv, "openai", ans, &rec, 9); err != nil {
				t.Fatal(err)
			}
			if rec.ID != tc.want {
				t.Fatalf("id %q, want %q", rec.ID, tc.want)
			}
		})
	}
}
