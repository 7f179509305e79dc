package transcript

// Issue 27 (Hardening II): what convo writes, convo reads back; nothing
// read is dropped silently; one decoder, one set of limits.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAll reads every record of d, stopping at the first error.
func readAll(d *Decoder) ([]Record, error) {
	var out []Record
	for {
		r, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func userLine(text string) string { return `{"role":"user","content":"` + text + `"}` }

// TestMergePastLimitRefused: two user messages of 3 MB each are fine
// alone, but merged (rule 1) they would make a record no reader takes
// back. The merge is refused at the line that makes it, in a transform
// as in an append.
func TestMergePastLimitRefused(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := userLine(big) + "\n" + userLine(big) + "\n"
	var out bytes.Buffer
	err := AppendStream(NewDecoder(strings.NewReader(in)), &out, nil, nil, NewIDs(), fixedClock(100))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "merg") {
		t.Fatalf("append transform: err = %v, want line 2 refused as a merge past the limit", err)
	}
	// export and summarize read stdin through a Rewriter and ApplyRules.
	rw := NewRewriter(NewEncoder(io.Discard), "", NewIDs(), fixedClock(100))
	if err := rw.Copy(NewDecoder(strings.NewReader(in)), nil); !errors.As(err, &ie) || ie.Line != 2 {
		t.Fatalf("rewriter: err = %v, want line 2", err)
	}
	app := NewAppender("", nil, NewIDs(), fixedClock(100))
	err = ApplyRules(NewDecoder(strings.NewReader(in)), app, func(Change) error { return nil })
	if !errors.As(err, &ie) || ie.Line != 2 {
		t.Fatalf("ApplyRules: err = %v, want line 2", err)
	}
	// What does fit is merged.
	small := strings.Repeat("y", 1<<20)
	out.Reset()
	if err := AppendStream(NewDecoder(strings.NewReader(userLine(small)+"\n"+userLine(small)+"\n")), &out, nil, nil, NewIDs(), fixedClock(100)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Fatalf("%d records, want the two merged into one", n)
	}
}

// TestDecoderRefusesMergeIntoStored: appending to a stored conversation,
// the decoder follows the stored open record and names the line whose
// merge would pass the limit, before anything is written.
func TestDecoderRefusesMergeIntoStored(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	stored, err := ParseLine([]byte(userLine(big)))
	if err != nil {
		t.Fatal(err)
	}
	in := `{"role":"system","content":"s"}` + "\n" + userLine(big) + "\n"
	d := NewDecoder(strings.NewReader(in))
	d.Conversation = "c"
	d.CheckAppend([]Record{stored}, true)
	_, err = readAll(d)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Field != "message" {
		t.Fatalf("err = %v, want line 2, field message", err)
	}
	// An assistant answer in between: no merge, nothing refused.
	d = NewDecoder(strings.NewReader(`{"role":"assistant","content":"a"}` + "\n" + userLine(big) + "\n"))
	d.CheckAppend([]Record{stored}, true)
	if _, err := readAll(d); err != nil {
		t.Fatal(err)
	}
}

// TestRecordOverLimit: one record over the limit is refused whatever
// reads it, naming its largest part; the line itself is read (up to six
// times the limit), so the message says what is too large.
func TestRecordOverLimit(t *testing.T) {
	line := `{"role":"user","contents":["a","` + strings.Repeat("x", 5<<20) + `"]}`
	for _, appending := range []bool{false, true} {
		d := NewDecoder(strings.NewReader(userLine("ok") + "\n" + line + "\n"))
		if appending {
			d.CheckAppend(nil, true)
		}
		_, err := readAll(d)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != 2 || ie.Field != "message.contents[1]" || !strings.Contains(err.Error(), "4 MiB limit") {
			t.Fatalf("appending %v: err = %v, want line 2, message.contents[1], over 4 MiB", appending, err)
		}
	}
	// Escapes count as written: 2.5 MiB of newlines take 5 MiB as \n.
	esc := `{"role":"user","content":"` + strings.Repeat(`\n`, 5<<19) + `"}`
	if _, err := ParseLine([]byte(esc)); err == nil {
		t.Fatal("a record of 5 MiB as written accepted")
	}
}

// TestCheckSize is the check a summarizer makes before storing: a
// summary's text counts, its summaryIds do not.
func TestCheckSize(t *testing.T) {
	ids := make([]string, 200_000) // 5.8 MB of ids
	for i := range ids {
		ids[i] = "01JRZJ166J2WRMF990535EVSQS"
	}
	sum := Record{Message: Message{Role: RoleSummary, Contents: []string{"short"}}, Metadata: Metadata{SummaryIDs: ids}}
	if err := CheckSize(&sum); err != nil {
		t.Fatalf("summary of many ids: %v", err)
	}
	sum.Message.Contents = []string{strings.Repeat("s", 5<<20)}
	err := CheckSize(&sum)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "message.contents[0]" {
		t.Fatalf("5 MB summary: err = %v, want message.contents[0] over the limit", err)
	}
	if err := Validate(&sum); err == nil {
		t.Fatal("Validate let a 5 MB summary through")
	}
}

// TestDecoderReadsLongSummaryLine: a summary of 1.45 M records lists 42 MB
// of ids; its line reads back whatever its length, as any other line of
// what convo writes. The line limit counts everything else.
func TestDecoderReadsLongSummaryLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":[`)
	const n = 1_000_000 // 29 MB of ids, more than the line limit
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"01JRZJ166J%016d"`, i)
	}
	b.WriteString(`],"timing":{"creation":1}}}`)
	long := b.String()
	if len(long) <= MaxLineBytes {
		t.Fatalf("the test line (%d bytes) is within the line limit %d", len(long), MaxLineBytes)
	}
	d := NewDecoder(strings.NewReader(userLine("a") + "\n" + long + "\n" + userLine("b") + "\n"))
	d.CheckAppend(nil, true)
	recs, err := readAll(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || len(recs[1].Metadata.SummaryIDs) != n {
		t.Fatalf("%d records, want 3 with %d ids in the summary", len(recs), n)
	}
	// Anything else that long is refused unread, the next line named right.
	huge := `{"role":"user","content":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	d = NewDecoder(strings.NewReader(userLine("a") + "\n" + huge + "\n" + userLine("b") + "\n"))
	_, err = readAll(d)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want line 2 too long", err)
	}
	// ids under another key than metadata.summaryIds count.
	fake := strings.Replace(long, `"metadata":{"summaryIds"`, `"metadata":{"aux":{"summaryIds"`, 1)
	fake = strings.Replace(fake, `],"timing"`, `]},"timing"`, 1)
	d = NewDecoder(strings.NewReader(fake + "\n"))
	if _, err := readAll(d); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("ids under aux: err = %v, want the line refused as too long", err)
	}
}

// TestUnknownKeys: a key no record holds is refused in a record, and in
// an OpenAI-style message dropped with a note that names it.
func TestUnknownKeys(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"message":{"role":"user","contents":["x"]},"meta":{"aux":{"k":1}}}`, `line 1: meta: unknown key`},
		{`{"message":{"role":"user","contents":["x"],"contnets":["y"]}}`, `line 1: message.contnets: unknown key`},
		{`{"message":{"role":"user","contents":["x"]},"metadata":{"auxx":{"k":1}}}`, `line 1: metadata.auxx: unknown key`},
		{`{"message":{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{}","args":"{}"}]}}`, `line 1: message.tool_calls[0].args: unknown key`},
		{`{"role":"user","content":"x","metadata":{"meta":1}}`, `line 1: metadata.meta: unknown key`},
		{`{"role":"assistant","content":"x","provider_data":[{"provider":"openai","at":0,"item":{},"extra":1}]}`, `line 1: provider_data[0].extra: unknown key`},
	} {
		d := NewDecoder(strings.NewReader(tc.line))
		d.Warn = func(int, string) {}
		_, err := readAll(d)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.line, err, tc.want)
		}
	}
	in := `{"role":"assistant","content":"Hi","refusal":"no","annotations":[],"audio":null}
{"role":"assistant","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}`
	d := NewDecoder(strings.NewReader(in))
	var notes []string
	d.Warn = func(line int, msg string) { notes = append(notes, fmt.Sprintf("line %d: %s", line, msg)) }
	recs, err := readAll(d)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	want := []string{
		`line 1: refusal dropped: a record keeps no such field`,
		`line 2: tool_calls[0].index dropped: a record keeps no such field`,
		`line 3: content[0].cache_control dropped: a record keeps no such field`,
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// TestNegativeTiming: a time before the epoch is refused as it is read,
// as annotate refuses it; the record schema takes none.
func TestNegativeTiming(t *testing.T) {
	for _, line := range []string{
		`{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1,"llmStart":-100}}}`,
		`{"role":"user","content":"x","metadata":{"timing":{"playEnd":-1}}}`,
	} {
		d := NewDecoder(strings.NewReader(userLine("a") + "\n" + line + "\n"))
		_, err := readAll(d)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != 2 || !strings.HasPrefix(ie.Field, "metadata.timing.") || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%s: err = %v, want line 2, metadata.timing, negative", line, err)
		}
	}
}

// TestTransformsShareLimits: what append refuses as too deep, the
// transforms (summarize, export, render on stdin) refuse too: one decoder,
// one set of limits.
func TestTransformsShareLimits(t *testing.T) {
	deep := strings.Repeat(`{\"a\":`, 100_000) + "1" + strings.Repeat("}", 100_000)
	line := `{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":"` + deep + `"}]}`
	in := userLine("q") + "\n" + line + "\n"
	for _, appending := range []bool{false, true} {
		d := NewDecoder(strings.NewReader(in))
		if appending {
			d.CheckAppend(nil, true)
		}
		_, err := readAll(d)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != 2 || ie.Field != "message.tool_calls[0].arguments" || !strings.Contains(err.Error(), "deep") {
			t.Errorf("appending %v: err = %v, want line 2 arguments too deep", appending, err)
		}
	}
	// As deep as encoding/json reads is fine for both.
	ok := strings.Repeat(`[`, MaxNesting) + strings.Repeat("]", MaxNesting)
	if _, err := ParseLine([]byte(`{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":"{\"a\":` + ok + `}"}]}`)); err == nil {
		t.Error("arguments nested one level past MaxNesting accepted")
	}
	ok = `{\"a\":` + strings.Repeat(`[`, MaxNesting-1) + strings.Repeat("]", MaxNesting-1) + "}"
	if _, err := ParseLine([]byte(`{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":"` + ok + `"}]}`)); err != nil {
		t.Errorf("arguments nested MaxNesting deep: %v", err)
	}
}
