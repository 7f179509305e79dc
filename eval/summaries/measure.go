package main

import (
	"slices"
	"strings"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/transcript"
)

// measure compares the final view (tail) and a plain window of the same
// size with the whole history.
func (rp replayer) measure(r *result, c domains.Conversation, tail []transcript.Record, recordOf []string, summaryTokens map[string]int) {
	viewTokens := rp.viewTokens(tail, summaryTokens)
	verbatim := map[string]bool{}
	var view strings.Builder
	for _, rec := range tail {
		if rec.Message.Role == transcript.RoleSystem {
			continue
		}
		if rec.Message.Role != transcript.RoleSummary {
			verbatim[rec.ID] = true
		}
		view.WriteString(text(rec.Message) + "\n")
	}
	var history []string
	for _, m := range c.Messages {
		history = append(history, text(m))
	}
	var window []string
	used := 0
	for i := len(c.Messages) - 1; i >= 0; i-- {
		n := rp.counter.Record(&transcript.Record{Message: c.Messages[i]})
		if used+n > viewTokens {
			break
		}
		used += n
		window = append(window, history[i])
	}
	viewText, winText, histText := view.String(), strings.Join(window, "\n"), strings.Join(history, "\n")
	if dump == c.Name {
		printf("%s\n", viewText)
	}
	kept, hist, win := normalize(viewText), normalize(histText), normalize(winText)
	keptSet, histSet, winSet := wordSet(kept), wordSet(hist), wordSet(win)
	rp.measureMeaning(r, c, tail, viewText)
	for _, q := range c.Questions {
		if q.Kind == domains.KindInstruction {
			continue
		}
		a := normalize(q.Answer)
		if strings.TrimSpace(a) == "" {
			continue
		}
		score := &r.answers
		if q.Prose {
			score = &r.prose
		}
		for _, w := range contentWords(a) {
			if histSet[w] {
				score.words++
				if keptSet[w] {
					score.wordsKept++
				}
				if winSet[w] {
					score.wordsWindow++
				}
			}
		}
		if strings.Contains(hist, a) {
			score.found++
			if strings.Contains(kept, a) {
				score.kept++
			} else if verbose {
				printf("  lost (%s): %s %s\n", c.Name, q.Label, q.Answer)
			}
			if strings.Contains(win, a) {
				score.windowKept++
			}
		}
		// An identifier counts where the summary must carry it: first
		// said in what the final summary covers.
		if q.Prose || q.Kind == "qa" || q.Turn < 0 || q.Turn >= len(recordOf) || verbatim[recordOf[q.Turn]] {
			continue
		}
		r.ids++
		if strings.Contains(viewText, q.Answer) {
			r.idsKept++
			if labeled(viewText, q) {
				r.idsLabeled++
			} else if verbose {
				printf("  unlabeled (%s): %q %q\n", c.Name, q.Label, q.Answer)
			}
		}
		if strings.Contains(winText, q.Answer) {
			r.idsWindow++
		}
	}
}

// labeled reports whether some part of text that holds q's identifier
// (a line, a ledger entry, a clause of a note) also holds every content
// word of its label: a bare list of ids says nothing of what they are.
func labeled(text string, q domains.Question) bool {
	want := contentWords(normalize(q.Label))
	for _, seg := range segmenter.Split(text, -1) {
		if !strings.Contains(seg, q.Answer) {
			continue
		}
		words := wordSet(normalize(strings.ReplaceAll(seg, q.Answer, " ")))
		all := true
		for _, w := range want {
			if !words[w] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// measureMeaning adds the columns of issue 37: what the final summary's
// notes mean against what was said, and what must survive verbatim.
func (rp replayer) measureMeaning(r *result, c domains.Conversation, tail []transcript.Record, viewText string) {
	var summary string
	for _, rec := range tail {
		if rec.Message.Role == transcript.RoleSummary {
			summary = strings.Join(rec.Message.Contents, "\n")
		}
	}
	r.notes = domains.ScoreNotes(c.Messages, domains.SummaryNotes(summary))
	for _, q := range c.Questions {
		if q.Kind != domains.KindInstruction {
			continue
		}
		r.instr++
		if strings.Contains(viewText, q.Answer) {
			r.instrKept++
		} else if verbose {
			printf("  instruction lost (%s): %s\n", c.Name, q.Answer)
		}
	}
	if !slices.ContainsFunc(c.Messages, func(m transcript.Message) bool { return len(m.ToolCalls) > 0 }) {
		if verbose {
			for _, n := range r.notes.FlipNotes {
				printf("  flip (%s): %s\n", c.Name, n)
			}
		}
		return
	}
	r.sessions++
	first, latest := -1, -1
	for i, m := range c.Messages {
		if m.Role == transcript.RoleUser {
			if first < 0 {
				first = i
			}
			latest = i
		}
	}
	kept := func(i int) bool {
		for _, s := range c.Messages[i].Contents {
			if !strings.Contains(viewText, s) {
				return false
			}
		}
		return true
	}
	if first >= 0 && kept(first) && kept(latest) {
		r.requestsKept++
	} else if verbose {
		printf("  request lost (%s): first %v, latest %v\n", c.Name, first >= 0 && kept(first), latest >= 0 && kept(latest))
	}
	for _, l := range domains.ErrorLines(c.Messages) {
		r.errLines++
		if strings.Contains(viewText, l) {
			r.errKept++
		} else if verbose {
			printf("  error line lost (%s): %s\n", c.Name, l)
		}
	}
	var examples []string
	r.bodyEntries, r.bodyNames, examples = domains.BodyEntries(c.Messages, domains.LedgerEntries(summary))
	if verbose {
		for _, n := range r.notes.FlipNotes {
			printf("  flip (%s): %s\n", c.Name, n)
		}
		for _, e := range examples {
			printf("  ledger entry from a tool body (%s): %s\n", c.Name, e)
		}
	}
}
