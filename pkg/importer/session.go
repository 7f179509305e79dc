package importer

// One session into one conversation: entries past the cursor become
// records with their ids, in chunks, each chunk with its cursor; a branch
// that moved behind the cursor goes to a conversation of its own.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// chunkLimit bounds the text one chunk holds in memory (two are: one
// written, one decoded).
const chunkLimit = 8 << 20

// errMoved: the active branch no longer holds, where the cursor says, the
// last entry imported.
var errMoved = errors.New("active branch moved")

func (im *Importer) session(ctx context.Context, src *Source, st fileState, s *Session) error {
	im.Tally.Sessions++
	conv, err := im.name(s)
	if err != nil {
		return err
	}
	err = im.path(ctx, src, st, s, conv, s.Walk, "", "")
	if errors.Is(err, errMoved) {
		err = im.moved(ctx, src, st, s, conv)
	}
	if err != nil {
		return err
	}
	for _, b := range s.Branches {
		fork := forkName(conv, b.Key)
		_, had := im.cursors[[2]string{src.Path, fork}]
		before := im.Tally.Inserted
		err := im.path(ctx, src, st, s, fork, b.Walk, conv, b.Key)
		if err == nil && !had && im.Tally.Inserted > before {
			im.Tally.Forks++ // a branch imported for the first time
		}
		if errors.Is(err, errMoved) {
			im.opt.Warn(fmt.Sprintf("%s: branch %s of %s no longer holds what %s holds: left as it was", src.Path, b.Key, s.ID, fork))
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (im *Importer) name(s *Session) (string, error) {
	conv := im.opt.Prefix + s.ID
	if im.opt.Name != nil {
		var err error
		if conv, err = im.opt.Name(NameData{Tool: im.opt.Format.Name(), Session: s.ID, Title: s.Meta.Title, Project: s.Meta.Project}); err != nil {
			return "", err
		}
		// What --name made is --name's to answer for, not the session's.
		switch {
		case strings.TrimSpace(conv) == "":
			return "", inputErr(0, "--name", "the template gives session %.80q an empty name", s.ID)
		case len(conv) > transcript.MaxConversationBytes:
			return "", inputErr(0, "--name", "the template gives session %.80q a name of %d bytes, over %d", s.ID, len(conv), transcript.MaxConversationBytes)
		case strings.IndexByte(conv, 0) >= 0:
			return "", inputErr(0, "--name", "the template gives session %.80q a name holding a NUL character", s.ID)
		}
	}
	if len(conv) > transcript.MaxConversationBytes && strings.IndexByte(conv, 0) < 0 {
		// A session id longer than a name may be: the name is cut, with
		// a hash of the whole, so that it stays one per session.
		h := sha256.Sum256([]byte(conv))
		short := conv[:transcript.MaxConversationBytes-56]
		for len(short) > 0 && !utf8.ValidString(short) {
			short = short[:len(short)-1]
		}
		short += "~" + hex.EncodeToString(h[:8])
		im.opt.Warn(fmt.Sprintf("session id of %d bytes: named %s (a conversation name holds at most %d)", len(s.ID), short, transcript.MaxConversationBytes))
		conv = short
	}
	switch {
	case conv == "":
		return "", inputErr(0, "session", "a session without an id")
	case strings.IndexByte(conv, 0) >= 0:
		return "", inputErr(0, "session", "a session id holding a NUL character")
	}
	return conv, nil
}

// forkName names the conversation of a branch: its first entry off the
// active branch, shortened.
func forkName(conv, key string) string { return conv + "~" + shortKey(key) }

// shortKey is key's first 8 letters and digits.
func shortKey(key string) string {
	k := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, key)
	if len(k) > 8 {
		k = k[:8]
	}
	return k
}

// path imports walk's entries past conv's cursor into conv; for a branch,
// forkOf is the conversation it leaves at entry forkKey.
func (im *Importer) path(ctx context.Context, src *Source, st fileState, s *Session, conv string,
	walk func(int, func(*Entry) error) error, forkOf, forkKey string) error {
	cur, have := im.cursors[[2]string{src.Path, conv}]
	if !have && !im.opt.Format.Growing() {
		// A later export under another name holds the same conversations:
		// matched by id, wherever the last export lay.
		cur, have = im.byConv[conv]
	}
	if src.at != nil && !have {
		// Read from another conversation's cursor (the session's id
		// changed?): nothing is stored yet, read the file from its start.
		return errRestart
	}
	w := &pathWrite{im: im, ctx: ctx, src: src, st: st, conv: conv, cur: cur, have: have,
		b: builder{im: im, src: src, s: s, conv: conv, forkOf: forkOf, forkKey: forkKey, first: !have,
			shared: forkOf != "" && !have},
		head: headHash(src, src.Size), last: cur.LastEntry}
	if have {
		w.skip = int(cur.Entries)
	}
	if src.at != nil {
		w.i, w.next = w.skip, src.at.point() // the walk begins past the cursor
	}
	defer w.report()
	err := walk(w.skip, w.entry)
	if err != nil {
		if werr := w.wait(); werr != nil && !errors.Is(err, context.Canceled) {
			im.opt.Warn(werr.Error())
		}
		return im.interleaved(ctx, src, s, conv, walk, w.skip, forkKey, w.chunk, err)
	}
	if w.i < w.skip {
		return errMoved // rewound behind the cursor
	}
	if err := w.flush(true); err != nil {
		return im.interleaved(ctx, src, s, conv, walk, w.skip, forkKey, w.chunk, err)
	}
	if have && w.i > w.skip {
		return im.updateMeta(ctx, conv, s.Meta)
	}
	return nil
}

// interleaved handles err, when a deletion came between two chunks of
// this import (store.ErrInterleaved): what the import had not stored (the
// chunk held, the entries not read yet) is remembered as deleted, so that
// the conversation is never a headless part (gone, or rewound, and
// remembered: import --again brings it back whole). Other errors pass.
func (im *Importer) interleaved(ctx context.Context, src *Source, s *Session, conv string,
	walk func(int, func(*Entry) error) error, skip int, forkKey string, held []transcript.Record, err error) error {
	if !errors.Is(err, store.ErrInterleaved) {
		return err
	}
	var ids []string
	for _, r := range held {
		ids = append(ids, r.ID)
	}
	b := builder{im: im, src: src, s: s, conv: conv, forkKey: forkKey, quiet: true}
	werr := walk(skip, func(e *Entry) error {
		if e.Time.IsZero() {
			e.Time = b.last
		} else {
			b.last = e.Time
		}
		for j := range e.Records {
			ids = append(ids, b.id(e, j))
		}
		return nil
	})
	if werr == nil {
		werr = im.st.RememberDeleted(ctx, conv, ids)
	}
	if werr != nil {
		return fmt.Errorf("%w (and what was not stored could not be remembered as deleted: %v)", err, werr)
	}
	return fmt.Errorf("%w: the rest of the session was not imported, and what was not stored is remembered as deleted (import --again %s brings it back whole)", err, conv)
}

// moved handles an active branch that no longer holds the last entry
// imported: the branch goes, whole, to a conversation of its own, named
// after its first entry the conversation lacks; the conversation stays.
func (im *Importer) moved(ctx context.Context, src *Source, st fileState, s *Session, conv string) error {
	have := map[string]bool{}
	err := im.st.Dump(ctx, conv, func(d store.Dumped) error {
		switch {
		case d.Record != nil:
			have[d.Record.ID] = true
		case d.Absorbed != nil:
			have[d.Absorbed.ID] = true
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	key, n := "", 0
	errFound := errors.New("found")
	b := builder{im: im, src: src, s: s, conv: conv, quiet: true}
	err = s.Walk(0, func(e *Entry) error {
		n++
		if len(e.Records) == 0 {
			return nil
		}
		if !have[b.id(e, 0)] {
			key = e.ID
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return err
	}
	// The conversation stays; its cursor learns the file's new state.
	cur, ok := im.cursors[[2]string{src.Path, conv}]
	if !ok {
		cur = im.byConv[conv] // an export under another name
	}
	cur.Source, cur.Size, cur.MTime, cur.Resume = src.Path, st.size, st.mtime, "" // read from the start next time
	if _, err := im.st.ImportAppend(ctx, cur, im.ids, transcript.Slice()); err != nil {
		return err
	}
	im.cursors[[2]string{src.Path, conv}] = cur
	if key == "" {
		im.opt.Warn(fmt.Sprintf("%s: session %s was rewound behind what was imported (%d entries then, %d on its active branch now): %s stays as it was",
			src.Path, s.ID, cur.Entries, n, conv))
		return nil
	}
	fork := forkName(conv, key)
	im.opt.Warn(fmt.Sprintf("%s: the active branch of session %s moved behind what was imported (at entry %s): it goes to %s, %s stays as it was",
		src.Path, s.ID, key, fork, conv))
	im.Tally.Forks++
	err = im.path(ctx, src, st, s, fork, s.Walk, conv, key)
	if errors.Is(err, errMoved) {
		im.opt.Warn(fmt.Sprintf("%s: %s moved again: left as it was", src.Path, fork))
		return nil
	}
	return err
}

// auxJSON is v as an aux value.
func auxJSON(v any) json.RawMessage {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	b, _ := json.Marshal(v)
	return b
}

// quote is s as a JSON string, without encoding/json's reflection.
func quote(s string) json.RawMessage { return transcript.AppendString(nil, s) }
