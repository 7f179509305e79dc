package facts

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// Instructions are the sentences of a user's text that instruct, each
// whole and verbatim, never clipped, with its condition clauses ("Unless
// the client agrees, never share the draft." is one instruction).
//
// A sentence instructs (English rules) when, after an optional speaker's
// label, a softener ("also", "and", "btw", "thanks,", "one more thing:")
// and a leading condition or time clause ("if …,", "unless …,", "after 6
// pm,", "whatever you do,"), it opens with
//   - an imperative, bare or not: "Do not", "Don't", "Never", "Always",
//     "Please", "Make sure", "Remember to", "Stop", "Avoid", "Keep" (but
//     "keep me posted", "keep it up"), "Ensure", "Be sure to" ("Use …" is
//     left out: it opens a one-off request as often as a rule, "Use order
//     #4512 for the flight", and the ledger would spend its first rank on
//     it);
//   - "I want / I'd like / I need you to", "I prefer", "From now on",
//     "Going forward", "In future" / "In the future";
//
// or when its main clause holds a modal aimed at the assistant ("you must",
// "you should", "you shouldn't", "you need to", "you have to", "you
// mustn't", "you're to", "you ought to"), "from now on" or "going
// forward". A question does not instruct ("Do you …?", "Should you …?"),
// but for a request with a standing word ("Could you always cc the finance
// team?"); neither does an exclamation ("You should totally go!", "Don't
// give up!": cheering, in chat), a guess or a prediction ("you must have
// been thrilled", "you should see a green light"), a past told without
// its subject ("Never saw this coming."), nor the set phrases of chat
// that look like imperatives ("don't worry", "never mind", "please find
// attached", "no worries").
func Instructions(text string) []Found {
	var out []Found
	for _, s := range sentenceRE().FindAllString(text, -1) {
		s = strings.TrimSpace(s)
		if len(strings.Fields(s)) >= 3 && instructs(s) {
			out = append(out, Found{Text: s, Kind: "instruction"})
		}
	}
	return out
}

// instructs reports whether the sentence s instructs (see Instructions).
func instructs(s string) bool {
	if !mayInstruct(s) {
		return false
	}
	lower := strings.ToLower(s)
	lower = strings.ReplaceAll(lower, "’", "'")
	switch {
	case strings.HasSuffix(lower, "?"):
		return standingRequestRE().MatchString(lower)
	case strings.HasSuffix(lower, "!"):
		// An exclamation is cheering in chat far more often than a
		// rule: "You should totally go!", "Don't give up!", "Keep those
		// fingers crossed!".
		return false
	}
	rest := lower
	if m := speakerRE().FindString(rest); m != "" {
		rest = rest[len(m):]
	}
	for {
		m := softenerRE().FindString(rest)
		if m == "" {
			break
		}
		rest = rest[len(m):]
	}
	if m := conditionRE().FindString(rest); m != "" {
		rest = rest[len(m):]
	}
	if notInstructionRE().MatchString(rest) {
		return false
	}
	return openerRE().MatchString(rest) || modalRE().MatchString(rest)
}

// cues are the words every instruction holds one of, folded: the
// expressions run only on a sentence that holds one, which few sentences
// of chat do.
var cues = []string{"do not", "don't", "don’t", "dont", "never", "always", "please", "make sure", "make certain",
	"remember", "stop", "avoid", "keep ", "ensure", "be sure", "be careful", "refrain", "from now on", "going forward",
	"future", "prefer", "let's", "let’s", "you must", "you should", "you need", "you have to", "you'll", "you’ll",
	"you will", "you ought", "you are to", "you're to", "you’re to", "you are not to", "you're not to", "you’re not to",
	"you really", "you always", "you never", "you still", "you also", "you absolutely", "you to"}

// mayInstruct reports whether s holds a cue, whatever its case.
func mayInstruct(s string) bool {
	var buf [256]byte
	lower := buf[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	// One pass, trying only the cues that start with each byte: the test
	// runs on every user sentence of a span.
	for i, c := range lower {
		for _, cue := range cuesByFirst[c] {
			if bytes.HasPrefix(lower[i:], cue) {
				return true
			}
		}
	}
	return false
}

// cuesByFirst are the cues by their first byte.
var cuesByFirst = func() (t [256][][]byte) {
	for _, c := range cues {
		t[c[0]] = append(t[c[0]], []byte(c))
	}
	return t
}()

var (
	// speakerRE is a speaker's label before what they say ("Anna: ").
	speakerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w .-]{1,40}: `) })
	// softenerRE is a word that may lead an instruction without changing
	// it.
	softenerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:also|and|but|so|oh|ok|okay|btw|by the way|one more thing|one last thing|finally|again|just|thanks|thank you|and also|oh and|ps|p\.s\.|note|important|reminder)\b[,:!.]?\s+`)
	})
	// conditionRE is a condition or time clause before its main clause,
	// up to its comma.
	conditionRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:if|unless|when|whenever|whatever|no matter|before|after|once|while|until|in case|for|on|during|outside|at)\b[^,]{1,120}, (?:then )?`)
	})
	openerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:do not|don't|dont|never|always|please|make sure|make certain|remember to|remember that|stop|avoid|keep|ensure|be sure to|be careful|refrain from|from now on|going forward|in (?:the )?future|i (?:want|need|would like|'d like) you to|i prefer|i'd prefer|i would prefer|let's always|let's never)\b`)
	})
	modalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\byou(?: really| always| never| still| also| absolutely)? (?:must|mustn't|must not|should|shouldn't|should not|need to|have to|'ll have to|will have to|'ll need to|will need to|ought to|are to|'re to|are not to|'re not to)\b|\bfrom now on\b|\bgoing forward\b`)
	})
	// notInstructionRE is what looks like an instruction and is chat, or a
	// prediction ("you should see a green light").
	notInstructionRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:don't worry|do not worry|dont worry|never mind|nevermind|no worries|please find|please note that i|please let me know if you have|please advise|please and thank|always happy|always a pleasure|keep up the good work|keep it up|keep me (?:posted|updated|informed|in the loop)|keep in touch|keep going|use case)\b` +
			// a prediction, or a guess of the past: "you should see a
			// green light", "you must have been thrilled"
			`|\byou (?:\w+ )?(?:should|must|mustn't|shouldn't|should not|must not) (?:see|get|receive|be able|find|notice|hear|have)\b` +
			// a past told without its subject: "never saw this coming"
			`|\byou (?:\w+ )?must (?:be|feel|love|know|think)\b` +
			// a past or a state told without its subject: "never saw this
			// coming", "always good chatting with you", "don't know what
			// I'd do", "(I'll) keep you posted"
			`|^(?:never|always) (?:\w+ed|\w+ing|saw|had|was|were|thought|knew|felt|got|went|did|been|seen|heard|made|found|came|took|gave|a|an|the|good|great|nice|fun|happy|glad|there|here|up|so|such|ready|love|loved)\b` +
			`|^(?:don't|do not|dont) (?:know|feel like|think|remember|get me wrong|mind|care)\b|^keep you (?:posted|updated|informed)\b`)
	})
	// standingRequestRE is a question that instructs: a request with a
	// word that makes it stand ("could you always …", "can you make sure
	// …", "would you never …").
	standingRequestRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[\w .-]{1,40}: )?(?:(?:also|and|so|but),? )?(?:can|could|would|will) you (?:please )?(?:always|never|make sure|remember to|from now on|stop|avoid|keep)\b`)
	})
	// A sentence ends at stops before a space or the end, so an address
	// or a decimal inside it stays whole.
	sentenceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[^.!?\n]|[.!?]+[^\s.!?])+(?:[.!?]+|$)`) })
)
