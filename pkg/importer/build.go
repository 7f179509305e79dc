package importer

// From an entry's records to records the store takes: ids by the rule for
// outside data, aux.import, a compaction's summaryIds, results paired with
// open calls, the size limit.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// builder follows one conversation as its records are made: what a summary
// would cover, which calls await results, the last role (for merges).
type builder struct {
	im     *Importer
	src    *Source
	s      *Session
	conv   string
	forkOf string
	// forkKey: a branch's first entry off forkOf's branch; the entries
	// before it are forkOf's too (shared), their ids there under
	// aux.forkedFrom, as convo fork keeps them.
	forkKey string
	shared  bool
	first   bool // the next record is the conversation's first
	quiet   bool // only ids wanted: no notes
	loaded  bool
	// cover: the ids since the latest summary, that summary first, kept
	// as 16 bytes each (a session of a million entries and no compaction
	// covers a million ids).
	cover blockList[ulid.ULID]
	// partial: cover holds the ids from the newest records load read on,
	// not from the latest summary (read when a summary wants them).
	partial bool
	ctx     context.Context
	open    map[string]bool // calls of the latest assistant turn awaiting a result
	role    transcript.Role // the last non-system role
	last    time.Time
}

// loadTail is how many of a conversation's newest records load reads: its
// latest turns say what the rules need (the last role, the calls awaiting
// results); the ids a summary covers are read only if one comes.
const loadTail = 256

// load picks up the state of a conversation imported before: its newest
// records, from its latest summary on.
func (b *builder) load(ctx context.Context) error {
	b.loaded, b.ctx = true, ctx
	n, turn := 0, false
	err := b.read(ctx, loadTail)(func(r *transcript.Record) error {
		if n == 0 && r.Message.Role != transcript.RoleSummary {
			b.partial = true
		}
		n++
		turn = turn || r.Message.Role == transcript.RoleUser || r.Message.Role == transcript.RoleAssistant
		b.observe(r)
		return nil
	})
	if err == nil && n < loadTail {
		b.partial = false // all since the latest summary
	}
	if err == nil && b.partial && !turn {
		// Only tool results in the window: the turn they answer is older.
		b.cover.reset()
		b.open, b.role, b.partial = nil, "", false
		err = b.read(ctx, 0)(func(r *transcript.Record) error { b.observe(r); return nil })
	}
	if errors.Is(err, store.ErrNotFound) {
		// Imported before, but nothing stored (entries that make no
		// record): the next record is the conversation's first.
		b.first = true
		return nil
	}
	return err
}

// read is the newest limit records from the latest summary on (0: all of
// them), keeping the last one's time.
func (b *builder) read(ctx context.Context, limit int) transcript.Stream {
	return func(yield func(*transcript.Record) error) error {
		return b.im.st.Read(ctx, b.conv, store.ReadOptions{FromLatestSummary: true, Limit: limit}, func(row store.Row) error {
			var r transcript.Record
			if err := transcript.DecodeStored(row.Body, &r); err != nil {
				return err
			}
			if t := r.Metadata.Timing.Creation; t > 0 {
				b.last = time.UnixMilli(t)
			}
			return yield(&r)
		})
	}
}

// fillCover puts before cover the ids stored since the latest summary
// that load did not read: those before the first it holds.
func (b *builder) fillCover() error {
	b.partial = false
	first := *b.cover.at(0)
	var before blockList[ulid.ULID]
	errFound := errors.New("found")
	role := transcript.Role("")
	err := b.im.st.Read(b.ctx, b.conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		id := mustULID(r.ID)
		if id == first {
			return errFound
		}
		m := &r.Message
		if m.Role == transcript.RoleSystem {
			return nil
		}
		merges := (m.Role == transcript.RoleUser || m.Role == transcript.RoleAssistant) && m.Role == role
		if m.Role == transcript.RoleSummary || !merges && !r.IsFake() {
			before.add(id)
		}
		role = m.Role
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return err
	}
	for i := range b.cover.len() {
		before.add(*b.cover.at(i))
	}
	b.cover = before
	return nil
}

// observe follows r as the store's rules will: merges, summaries, calls.
func (b *builder) observe(r *transcript.Record) {
	m := &r.Message
	switch m.Role {
	case transcript.RoleSystem:
		return
	case transcript.RoleSummary:
		b.cover.reset()
		b.cover.add(mustULID(r.ID))
		b.open = nil
	case transcript.RoleAssistant:
		if b.role != transcript.RoleAssistant {
			b.open = map[string]bool{}
		}
		for _, c := range m.ToolCalls {
			b.open[c.ID] = true
		}
	case transcript.RoleTool:
		delete(b.open, m.ToolCallID)
	}
	merges := (m.Role == transcript.RoleUser || m.Role == transcript.RoleAssistant) && m.Role == b.role
	if !merges && !r.IsFake() && m.Role != transcript.RoleSummary {
		b.cover.add(mustULID(r.ID))
	}
	b.role = m.Role
}

// id is the id of the jth record entry e makes: a branch's ids are its
// own (a consumer keyed by id alone must not take one for the other's).
func (b *builder) id(e *Entry, j int) string {
	if b.forkKey != "" {
		return b.sourceID(e, j, "branch", b.forkKey)
	}
	return b.sourceID(e, j)
}

func (b *builder) sourceID(e *Entry, j int, more ...string) string {
	t := e.Time
	if t.IsZero() {
		t = b.last
	}
	key := e.ID
	if j > 0 {
		key += "#" + strconv.Itoa(j)
	}
	return transcript.SourceID(t, append([]string{b.im.opt.Format.Name(), b.s.ID, key}, more...)...)
}

// entry makes e's records ready to append.
func (b *builder) entry(e *Entry) ([]transcript.Record, error) {
	if e.Time.IsZero() {
		e.Time = b.last // an entry without a time keeps order after the one before
	} else {
		b.last = e.Time
	}
	if b.shared && e.ID == b.forkKey {
		b.shared = false
	}
	out := e.Records[:0]
	for j := range e.Records {
		r := e.Records[j]
		r.ID, r.Conversation = b.id(e, j), b.conv
		if b.shared {
			if r.Metadata.Aux == nil {
				r.Metadata.Aux = map[string]json.RawMessage{}
			}
			r.Metadata.Aux["forkedFrom"] = quote(b.sourceID(e, j))
		}
		r.Metadata.Timing.Creation = max(e.Time.UnixMilli(), 0)
		m := &r.Message
		switch m.Role {
		case transcript.RoleTool:
			if !b.open[m.ToolCallID] {
				b.src.Note("tool result answering no call")
				continue
			}
		case transcript.RoleSummary:
			if b.partial {
				if err := b.fillCover(); err != nil {
					return nil, err
				}
			}
			if b.cover.len() == 0 {
				// Nothing before it to cover: its text stays, as the user's.
				m.Role = transcript.RoleUser
				b.src.Note("compaction with nothing before it (kept as user text)")
			} else {
				r.Metadata.SummaryIDs = make([]string, b.cover.len())
				for i := range r.Metadata.SummaryIDs {
					r.Metadata.SummaryIDs[i] = b.cover.at(i).String()
				}
			}
		}
		// A record the rules merge into the one before names no entry:
		// its aux.import would replace that one's (its id is kept among
		// the absorbed).
		if merges := (m.Role == transcript.RoleUser || m.Role == transcript.RoleAssistant) && m.Role == b.role; !merges {
			var imp json.RawMessage
			if b.first {
				b.first = false
				v := map[string]any{"entry": e.ID}
				if e.Line > 0 {
					v["line"] = e.Line
				}
				b.meta(v)
				imp = auxJSON(v)
			} else {
				// {"entry":ID,"line":N}, as encoding/json writes it, by hand:
				// one per record.
				imp = append(transcript.AppendString(append(imp, `{"entry":`...), e.ID), '}')
				if e.Line > 0 {
					imp = strconv.AppendInt(append(imp[:len(imp)-1], `,"line":`...), int64(e.Line), 10)
					imp = append(imp, '}')
				}
			}
			if r.Metadata.Aux == nil {
				r.Metadata.Aux = map[string]json.RawMessage{}
			}
			r.Metadata.Aux["import"] = imp
		}
		if noNUL(&r.Message) {
			// Binary output in a tool result: kept, each NUL as U+FFFD.
			b.src.Note("NUL character replaced by U+FFFD")
		}
		if transcript.CheckSize(&r) != nil {
			cut(&r)
			b.im.Tally.Cut++
			b.src.Note("entry over the record size limit (cut)")
		}
		if err := transcript.Validate(&r); err != nil {
			var ie *transcript.InputError
			if errors.As(err, &ie) && ie.Line == 0 {
				ie.Line = e.Line
			}
			if skippable(err) {
				b.src.Skip(err) // this record, named; the rest goes on
				continue
			}
			return nil, err
		}
		b.observe(&r)
		out = append(out, r)
	}
	return out, nil
}

// noNUL replaces each NUL character of m's texts (which a record may not
// hold) by U+FFFD, and reports whether there was one.
func noNUL(m *transcript.Message) bool {
	found := false
	fix := func(s *string) {
		if strings.IndexByte(*s, 0) >= 0 {
			*s, found = strings.ReplaceAll(*s, "\x00", "\uFFFD"), true
		}
	}
	for i := range m.Contents {
		fix(&m.Contents[i])
	}
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		fix(&c.ID)
		fix(&c.Name)
		fix(&c.Arguments)
	}
	fix(&m.ToolCallID)
	return found
}

// sourceName is how aux.import names a source: "-" for stdin, a path
// under the home directory relative to it ("~/.claude/projects/..."), so
// that an export of the records does not carry the user's home; another
// path as it is (absolute). Cursors keep the absolute path.
func sourceName(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || p == "-" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return "~" + string(filepath.Separator) + rel
	}
	return p
}

// mustULID is a stored record's id, a ULID (transcript.Validate holds to
// that for every record stored).
func mustULID(id string) ulid.ULID {
	u, _ := ulid.ParseStrict(id)
	return u
}

// meta adds the session's own facts to the first record's aux.import.
func (b *builder) meta(imp map[string]any) {
	m := b.s.Meta
	imp["tool"] = b.im.opt.Format.Name()
	imp["source"] = sourceName(b.src.Path)
	imp["session"] = b.s.ID
	for k, v := range map[string]string{"version": m.Version, "cwd": m.Cwd, "gitBranch": m.GitBranch,
		"model": m.Model, "title": m.Title, "parent": m.Parent, "project": m.Project, "forkOf": b.forkOf} {
		if v != "" {
			imp[k] = v
		}
	}
}

// setTurnAux sets aux on the latest assistant record of the turn recs end
// with (none past a user record or a summary); false when recs hold none.
func setTurnAux(recs []transcript.Record, aux map[string]json.RawMessage) bool {
	for j := len(recs) - 1; j >= 0; j-- {
		r := &recs[j]
		switch r.Message.Role {
		case transcript.RoleAssistant:
			m := make(map[string]json.RawMessage, len(r.Metadata.Aux)+len(aux))
			for k, v := range r.Metadata.Aux {
				m[k] = v
			}
			for k, v := range aux {
				m[k] = v
			}
			r.Metadata.Aux = m
			return true
		case transcript.RoleUser, transcript.RoleSummary:
			return false
		}
	}
	return false
}
