package domains

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/convo-cli/convo/pkg/transcript"
)

// checkProse holds a question about a fact in words to what the eval
// scores: a few words, not an identifier, said verbatim in its turn's
// contents (never only in a tool call's arguments), sharing no words'
// run with another such answer.
func checkProse(t *testing.T, where string, c Conversation, q Question, others []string) {
	t.Helper()
	if n := len(strings.Fields(q.Answer)); n < 2 || n > 8 {
		t.Errorf("%s: a fact in words of %d words", where, n)
	}
	if strings.ContainsFunc(q.Answer, unicode.IsDigit) {
		t.Errorf("%s: a fact in words holds a digit", where)
	}
	if !slices.Contains([]string{"preference", "constraint", "condition", "cause", "decision", "goal"}, q.Kind) {
		t.Errorf("%s: kind %q", where, q.Kind)
	}
	if q.Turn >= 0 && !slices.ContainsFunc(c.Messages[q.Turn].Contents, func(s string) bool { return strings.Contains(s, q.Answer) }) {
		t.Errorf("%s: not verbatim in the contents of message %d", where, q.Turn)
	}
	words := func(s string) string {
		return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }), " ") + " "
	}
	for _, a := range others {
		if strings.Contains(words(a), words(q.Answer)) || strings.Contains(words(q.Answer), words(a)) {
			t.Errorf("%s: overlaps answer %q", where, a)
		}
	}
}

// TestProse checks that the facts in words are as varied as the brief of
// the domains says: in most conversations, of every kind, said by both
// sides, early and late, some of them repeated.
func TestProse(t *testing.T) {
	for _, d := range both {
		convs := d.gen(1, 12)
		kinds := map[string]int{}
		var with, byUser, byOther, early, late, repeated int
		for _, c := range convs {
			n := 0
			for _, q := range c.Questions {
				if !q.Prose {
					continue
				}
				n++
				kinds[q.Kind]++
				if c.Messages[q.Turn].Role == transcript.RoleUser {
					byUser++
				} else {
					byOther++
				}
				if q.Turn < len(c.Messages)/3 {
					early++
				} else if q.Turn > 2*len(c.Messages)/3 {
					late++
				}
				said := 0
				for _, m := range c.Messages {
					for _, s := range m.Contents {
						said += strings.Count(s, q.Answer)
					}
				}
				if said > 1 {
					repeated++
				}
			}
			if n > 0 {
				with++
			}
		}
		if with < len(convs)*3/4 || byUser == 0 || byOther == 0 || early == 0 || late == 0 || repeated == 0 {
			t.Errorf("%s: facts in words in %d of %d conversations; %d said by the user, %d by the other side; %d early, %d late; %d repeated",
				d.name, with, len(convs), byUser, byOther, early, late, repeated)
		}
		for _, k := range []string{"preference", "constraint", "condition", "cause", "decision"} {
			if kinds[k] == 0 {
				t.Errorf("%s: no fact in words of kind %s", d.name, k)
			}
		}
	}
}

// TestProseApart checks that the facts in words are drawn from streams of
// their own: without them, the identifiers asked for are the same, and a
// support chat has the same messages but for the sentences they add.
func TestProseApart(t *testing.T) {
	ids := func(cs []Conversation) (out [][]Question) {
		for _, c := range cs {
			out = append(out, slices.DeleteFunc(slices.Clone(c.Questions), func(q Question) bool { return q.Prose }))
		}
		return out
	}
	for _, d := range both {
		with := d.gen(3, 8)
		noProse = true
		without := d.gen(3, 8)
		noProse = false
		a, b := ids(with), ids(without)
		for i := range a {
			for j := range a[i] {
				a[i][j].Turn, b[i][j].Turn = 0, 0 // a user's word between calls moves what follows
			}
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Errorf("%s: the identifiers move with the facts in words", with[i].Name)
			}
			if d.name == "support" && len(with[i].Messages) != len(without[i].Messages) {
				t.Errorf("%s: %d messages with facts in words, %d without", with[i].Name, len(with[i].Messages), len(without[i].Messages))
			}
		}
	}
}
