package domains

import (
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// The agent domain's facts in words: the user's goal, constraints,
// preferences and what they noticed, said in the prompt or in a word
// between tool calls; the root cause the agent finds and what it decides.

var (
	agentGoal = pfact{"goal", [][]string{{"session goal", "what the user wants"}}, true,
		[]string{"[stream rows instead of buffering the whole file]", "[halve the memory use of the export]",
			"[make the retries safe to repeat]", "[serve several tenants from one process]", "[get rid of the global logger]",
			"[drop the second round trip to the database]"},
		[]string{"The goal is to {X}.", "Ultimately I want to {X}.", "What I'm after is a way to {X}."},
		nil, nil}
	agentConstraints = []pfact{
		{"constraint", [][]string{{"api constraint", "compatibility constraint"}}, true,
			[]string{"keep [the exported API stable]", "make sure [old config files still load]", "keep [the wire format byte for byte]"},
			[]string{"One constraint: {X}.", "Important: {X}.", "And please {X}."},
			[]string{"Reminder: {X}."},
			[]string{"Keeping to your constraint ({A}).", "I made sure of it: {A}."}},
		{"constraint", [][]string{{"dependency constraint", "constraint on imports"}}, true,
			[]string{"don't add [any new dependencies]", "stay [within the standard library]", "don't pull in [another logging package]"},
			[]string{"One constraint: {X}.", "Also, {X}.", "Please {X}."},
			[]string{"Reminder: {X}."},
			[]string{"No change there: {A}."}},
		{"constraint", [][]string{{"scope constraint", "what not to touch"}}, true,
			[]string{"don't touch [the generated protobuf code]", "leave [the database schema] alone", "don't change [the retry budget]"},
			[]string{"Heads up: {X}.", "Whatever you do, {X}.", "Please {X}."},
			[]string{"Again, {X}."},
			[]string{"Left as it was: {A}."}},
	}
	agentCondition = pfact{"condition", [][]string{{"failure condition", "when it fails"}}, true,
		[]string{"the flaky test [only fails under load]", "it [only happens on the Windows runners]", "it [started after the proxy upgrade]",
			"it [only breaks with non-English locales]", "it [only fails when the cache is cold]"},
		[]string{"FYI, {X}.", "One more thing I noticed: {X}.", "Forgot to mention: {X}."},
		nil,
		[]string{"That fits: it {A}.", "Which matches what you said, it {A}."}}
	agentPreference = pfact{"preference", [][]string{{"style preference", "coding preference"}}, true,
		[]string{"I prefer [small commits with one change each]", "I prefer [table tests over separate test functions]",
			"I prefer [errors wrapped with context]", "I like [comments that explain why, not what]"},
		[]string{"Also, {X}.", "{X}, if you can.", "Style-wise, {X}."},
		nil, nil}
	agentCause = pfact{"cause", [][]string{{"root cause", "cause of the bug"}}, false,
		[]string{"the [cache key ignored the locale]", "the [retry loop reused a closed response body]",
			"the [timer was never stopped on the early return]", "[two goroutines shared one buffer]",
			"the [deadline was computed in local time]", "the [error from Close was silently dropped]"},
		[]string{"Found it: {X}.", "So the bug is that {X}.", "That's the root cause: {X}."},
		[]string{"Root cause: {X}.", "To recap, {X}."},
		nil}
	agentDecision = pfact{"decision", [][]string{{"design decision", "approach chosen"}, {"decision reason", "why that approach"}}, false,
		[]string{"[guard the map with a mutex] rather than a channel because [writes are rare]",
			"[revert the optimisation instead of patching it] since [the release is tomorrow]",
			"[copy the slice before sorting] because [callers reuse the backing array]",
			"[keep the old function as a wrapper] so that [existing callers still compile]"},
		[]string{"I'm going to {X}.", "Plan: {X}.", "I'll {X}."},
		[]string{"As planned, I chose to {X}."},
		nil}
	// status is what the agent says when it stops between calls, and the
	// user answers.
	status = []string{"Quick status: I can reproduce it and I'm narrowing it down.", "Still digging; the first two guesses were wrong.",
		"Progress update: the tests compile again, the failure is still there.", "I have a candidate fix but want to check the callers first."}
)

// taskProse are the facts in words of one task: sentences of the prompt,
// of a word between calls (the user's, after a status), of the agent
// while it works (at a call), and of its closing summary.
type taskProse struct {
	prompt, interject []string
	interjectAt       int // calls made before the user's word (-1: none)
	work              []proseLine
	recap             []string
}

// taskFacts draws a task's facts in words from the session's own stream
// (s.pr), so its identifiers and tool calls are drawn as without them.
// quiet: the user does not speak between calls (the marathon sessions).
func (s *session) taskFacts(calls int, quiet, first bool) taskProse {
	r := s.pr
	t := taskProse{interjectAt: -1}
	if noProse {
		return t
	}
	said := func(f pfact) (string, string, string, bool) { return s.prose(r, f) }
	// A user fact goes in the prompt, or in a word between calls.
	user := func(f pfact) {
		x, text, a, ok := said(f)
		if !ok {
			return
		}
		inPrompt := quiet || calls < 4 || r.IntN(3) > 0
		if inPrompt {
			t.prompt = append(t.prompt, x)
		} else {
			t.interject = append(t.interject, x)
		}
		for _, l := range repeats(r, f, text, a) {
			switch {
			case l.user && inPrompt && !slices.Contains(t.interject, l.text):
				t.interject = append(t.interject, l.text)
			case !l.user && !slices.Contains(t.recap, l.text):
				t.recap = append(t.recap, l.text)
			}
		}
	}
	if r.IntN(2) == 0 {
		user(agentGoal)
	}
	for _, k := range r.Perm(len(agentConstraints))[:r.IntN(3)] {
		user(agentConstraints[k])
	}
	if r.IntN(3) == 0 {
		user(agentCondition)
	}
	if first && r.IntN(4) == 0 {
		user(agentPreference)
	}
	if len(t.interject) > 0 {
		if quiet || calls < 4 {
			t.interject = nil
		} else {
			t.interjectAt = between(r, 1, calls-2)
		}
	}
	// The agent's: a cause found and a decision, while it works.
	for _, f := range []pfact{agentCause, agentDecision} {
		if r.IntN(2) > 0 || calls < 3 {
			continue
		}
		x, text, _, ok := said(f)
		if !ok {
			continue
		}
		t.work = append(t.work, proseLine{at: between(r, calls/3, calls-1), text: x})
		if len(f.again) > 0 && r.IntN(2) == 0 {
			t.recap = append(t.recap, fill(pick(r, f.again), "{X}", text))
		}
	}
	return t
}

// interjection appends the agent's status and the user's word.
func (s *session) interjection(t *taskProse) {
	s.say(transcript.RoleAssistant, pick(s.pr, status))
	s.say(transcript.RoleUser, strings.Join(t.interject, " "))
	t.interjectAt = -1
}

// working returns what the agent says at call made: its facts due by
// then, before text.
func (t *taskProse) working(made int, text string) string {
	var due []string
	rest := t.work[:0]
	for _, l := range t.work {
		if l.at < made {
			due = append(due, l.text)
		} else {
			rest = append(rest, l)
		}
	}
	t.work = rest
	return strings.TrimSpace(strings.Join(due, " ") + " " + text)
}
