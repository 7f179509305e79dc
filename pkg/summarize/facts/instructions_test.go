package facts

import "testing"

// TestInstructions: a user's sentence that instructs is found whole,
// verbatim, with its conditions; questions and the set phrases of chat
// that look like imperatives are not instructions.
func TestInstructions(t *testing.T) {
	long := "Never push to the release branch directly, even when the pipeline is green and the reviewer has approved, because the deploy job reads that branch every five minutes and ships whatever it finds to every customer in the EU region."
	tests := []struct {
		text string
		want []string
	}{
		{"Do not order the garlic bread, it arrives cold.", []string{"Do not order the garlic bread, it arrives cold."}},
		{"Don't add any new dependencies.", []string{"Don't add any new dependencies."}},
		{"Don’t touch the schema.", []string{"Don’t touch the schema."}},
		{"Never share the draft unless the client agrees.", []string{"Never share the draft unless the client agrees."}},
		{"Always reply in English.", []string{"Always reply in English."}},
		{"Please cc billing@acme.example on every reply.", []string{"Please cc billing@acme.example on every reply."}},
		{"Make sure the tests pass before you commit.", []string{"Make sure the tests pass before you commit."}},
		{"Remember to bump the version in go.mod.", []string{"Remember to bump the version in go.mod."}},
		{"Stop reformatting files you did not change.", []string{"Stop reformatting files you did not change."}},
		{"Avoid the reflect package in hot paths.", []string{"Avoid the reflect package in hot paths."}},
		{"You must keep the public API stable.", []string{"You must keep the public API stable."}},
		{"You shouldn't rename exported functions.", []string{"You shouldn't rename exported functions."}},
		{"You need to run gofmt first.", []string{"You need to run gofmt first."}},
		{"You have to ask me before deleting anything.", []string{"You have to ask me before deleting anything."}},
		{"You mustn't call the payment API in tests.", []string{"You mustn't call the payment API in tests."}},
		{"I want you to write the tests first.", []string{"I want you to write the tests first."}},
		{"From now on, answer in French.", []string{"From now on, answer in French."}},
		{"Going forward, keep answers under 100 words.", []string{"Going forward, keep answers under 100 words."}},
		{"Unless the client agrees, never share the draft.", []string{"Unless the client agrees, never share the draft."}},
		{"After 6 pm, don't call me on the office line.", []string{"After 6 pm, don't call me on the office line."}},
		{"If the build fails, you must revert the commit.", []string{"If the build fails, you must revert the commit."}},
		{"Thanks, please send the invoice to my office.", []string{"Thanks, please send the invoice to my office."}},
		{"Also, leave the database schema alone. And don't add any new dependencies.", []string{"And don't add any new dependencies."}},
		{"Anna: please always cc the finance team.", []string{"Anna: please always cc the finance team."}},
		{"Could you always cc the finance team?", []string{"Could you always cc the finance team?"}},
		{"The header parser drops empty values. Fix it. Do not change the public API of internal/header.", []string{"Do not change the public API of internal/header."}},
		{long, []string{long}}, // never clipped
		{"Whatever you do, leave the database schema alone. Keep the diff small and don't touch the vendored code.", []string{"Keep the diff small and don't touch the vendored code."}},
		{"Whatever you do, don't touch the schema.", []string{"Whatever you do, don't touch the schema."}},
		// Not instructions.
		{"Keep me posted.", nil},
		{"You should definitely be proud!", nil},
		{"Don't give up!", nil},
		{"You must have been elated up there with that trophy.", nil},
		{"You must love it.", nil},
		{"Never saw this coming.", nil},
		{"Always good chatting with you.", nil},
		{"Don't know what I'd do without them.", nil},
		{"Keep you posted on the dance studio progress.", nil},
		{"Use order #4512 for the flight.", nil},
		{"Do you have the invoice?", nil},
		{"Don't you think it's late?", nil},
		{"Should you need anything else?", nil},
		{"Don't worry about the delay.", nil},
		{"Never mind, I found it.", nil},
		{"No worries at all.", nil},
		{"Please find attached the report.", nil},
		{"Thanks so much for the help.", nil},
		{"The backup server is not the one we use for exports.", nil},
		{"You should see a green light on the router.", nil},
		{"If you need to reach me, my number is on the card.", nil},
		{"I never liked that restaurant anyway.", nil},
		{"We always go there on Fridays.", nil},
		{"Only 3 left in stock.", nil},
		{"Did you have to wait long?", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Instructions(tt.text) {
			if f.Kind != "instruction" {
				t.Errorf("%q: kind %q", tt.text, f.Kind)
			}
			got = append(got, f.Text)
		}
		if len(got) != len(tt.want) {
			t.Errorf("Instructions(%q) = %q, want %q", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Instructions(%q)[%d] = %q, want %q", tt.text, i, got[i], tt.want[i])
			}
		}
	}
}
