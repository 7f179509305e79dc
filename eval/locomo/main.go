// Command locomo measures what summarizing saves and keeps on LoCoMo
// (snap-research/locomo, ACL 2024): ten very long two-person conversations
// with question/answer items. Each conversation is replayed turn by turn
// into a fresh store (speaker A as user, speaker B as assistant) through the
// real CLI, in process, running `summarize --if-over T --keep-last 4` with
// the extractive summarizer after every turn. For each T it prints:
//
//   - tokens sent: the sum over all turns of the tokens of the LLM view
//     (summary included) with summarization, over the same without;
//   - answers kept: the share of QA answers (normalized text) found in the
//     final summary plus kept window, over the share found in the full history;
//   - summary size: tokens of each summary written (it must stay bounded).
//
// The dataset is read from ../shared/eval/locomo10.zip and never copied.
package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

type turn struct {
	Speaker, Text string
}

type qa struct {
	Answer any `json:"answer"`
}

type sample struct {
	name  string
	turns []turn
	qa    []qa
}

func main() {
	dataset := flag.String("data", "../shared/eval/locomo10.zip", "the LoCoMo zip")
	thresholds := flag.String("if-over", "1000,2000,4000", "comma-separated --if-over values")
	keepLast := flag.Int("keep-last", 4, "--keep-last")
	extra := flag.String("args", "", "more summarize flags, space-separated (e.g. --max-summary-tokens 400)")
	limit := flag.Int("conversations", 0, "only the first N conversations (0: all)")
	flag.BoolVar(&verbose, "v", false, "print the answers found in the history but lost")
	flag.Parse()

	samples, err := load(*dataset)
	if err != nil {
		log.Fatal(err)
	}
	if *limit > 0 && *limit < len(samples) {
		samples = samples[:*limit]
	}
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		log.Fatal(err)
	}
	nTurns, nQA := 0, 0
	for _, s := range samples {
		nTurns += len(s.turns)
		nQA += len(s.qa)
	}
	fmt.Printf("LoCoMo: %d conversations, %d turns, %d QA items; keep-last %d, extractive summarizer %s\n",
		len(samples), nTurns, nQA, *keepLast, *extra)
	fmt.Printf("%-8s %12s %14s %14s %14s %10s %10s %s\n", "if-over", "tokens sent", "answers kept", "summary max", "summary mean", "summaries", "seconds", "answers (in history, kept)")
	for _, field := range strings.Split(*thresholds, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil {
			log.Fatalf("bad -if-over %q", field)
		}
		start := time.Now()
		var r result
		for _, s := range samples {
			if err := replay(s, t, *keepLast, strings.Fields(*extra), counter, &r); err != nil {
				log.Fatalf("%s: %v", s.name, err)
			}
		}
		sort.Ints(r.summarySizes)
		mean := 0.0
		for _, n := range r.summarySizes {
			mean += float64(n)
		}
		if len(r.summarySizes) > 0 {
			mean /= float64(len(r.summarySizes))
		}
		maxSize := 0
		if len(r.summarySizes) > 0 {
			maxSize = r.summarySizes[len(r.summarySizes)-1]
		}
		fmt.Printf("%-8d %12.3f %14.3f %14d %14.0f %10d %10.1f %d (%d, %d)\n", t,
			float64(r.sentWith)/float64(r.sentWithout),
			(float64(r.keptFound)/float64(r.qaTotal))/(float64(r.historyFound)/float64(r.qaTotal)),
			maxSize, mean, len(r.summarySizes), time.Since(start).Seconds(), r.qaTotal, r.historyFound, r.keptFound)
	}
}

var verbose bool

type result struct {
	sentWith, sentWithout   int
	keptFound, historyFound int
	qaTotal                 int
	summarySizes            []int
}

// replay runs one conversation through convo at one threshold.
func replay(s sample, ifOver, keepLast int, extra []string, counter *tokens.Counter, r *result) error {
	dir, err := os.MkdirTemp("", "locomo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "convo.db")
	ctx := context.Background()
	run := func(stdin string, args ...string) (string, error) {
		io, out, errOut := cmd.Test(stdin)
		if code := cmd.Run(ctx, append([]string{"--db", db}, args...), io); code != 0 {
			return "", fmt.Errorf("convo %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out.String(), nil
	}
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()

	speakerA := s.turns[0].Speaker
	history := 0
	var full strings.Builder
	for _, t := range s.turns {
		role := "assistant"
		if t.Speaker == speakerA {
			role = "user"
		}
		line, _ := json.Marshal(map[string]any{"role": role, "content": t.Speaker + ": " + t.Text})
		if _, err := run(string(line)+"\n", "append", "-q", "-c", s.name); err != nil {
			return err
		}
		history += counter.Count(t.Speaker + ": " + t.Text)
		full.WriteString(t.Speaker + ": " + t.Text + "\n")
		out, err := run("", append([]string{"summarize", "-c", s.name, "--if-over", strconv.Itoa(ifOver), "--keep-last", strconv.Itoa(keepLast)}, extra...)...)
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != "" {
			var sum transcript.Record
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				return fmt.Errorf("summary output: %w", err)
			}
			r.summarySizes = append(r.summarySizes, counter.Record(&sum))
		}
		viewTokens, viewText, err := view(ctx, st, s.name, counter)
		if err != nil {
			return err
		}
		r.sentWith += viewTokens
		r.sentWithout += history
		_ = viewText
	}
	_, viewText, err := view(ctx, st, s.name, counter)
	if err != nil {
		return err
	}
	kept, hist := normalize(viewText), normalize(full.String())
	for _, q := range s.qa {
		if q.Answer == nil {
			continue // adversarial items carry no answer
		}
		a := normalize(fmt.Sprint(q.Answer))
		if strings.TrimSpace(a) == "" {
			continue
		}
		r.qaTotal++
		if strings.Contains(hist, a) {
			r.historyFound++
			if strings.Contains(kept, a) {
				r.keptFound++
			} else if verbose {
				fmt.Printf("  lost (%s, if-over %d): %v\n", s.name, ifOver, q.Answer)
			}
		}
	}
	return nil
}

// view returns the tokens and text of what the LLM is sent: the latest
// summary and the messages after it.
func view(ctx context.Context, st store.Store, conv string, counter *tokens.Counter) (int, string, error) {
	n := 0
	var text strings.Builder
	var parts transcript.ViewFilter
	var r transcript.Record
	err := st.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		if parts.Add(transcript.Role(row.Role)) == transcript.ViewSystem {
			return nil
		}
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		n += counter.Record(&r)
		text.WriteString(strings.Join(r.Message.Contents, "\n") + "\n")
		return nil
	})
	return n, text.String(), err
}

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// normalize lower-cases and keeps words only, the usual QA answer match.
func normalize(s string) string {
	return " " + strings.TrimSpace(nonWord.ReplaceAllString(strings.ToLower(s), " ")) + " "
}

// load reads the conversations and QA items from the zip, in name order.
func load(path string) ([]sample, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w (run from the repository root, with ../shared/eval beside it)", err)
	}
	defer z.Close()
	var out []sample
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		s := sample{name: strings.TrimSuffix(filepath.Base(f.Name), ".json")}
		for i := 1; ; i++ {
			sess, ok := raw[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []turn
			if err := json.Unmarshal(sess, &ts); err != nil {
				return nil, fmt.Errorf("%s session %d: %w", f.Name, i, err)
			}
			s.turns = append(s.turns, ts...)
		}
		if err := json.Unmarshal(raw["qa"], &s.qa); err != nil {
			return nil, fmt.Errorf("%s qa: %w", f.Name, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}
