package importer

// The use case: walk the paths, skip what is unchanged, decode the rest
// and append each session's new entries with their cursor, chunk by chunk.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Options shape an import.
type Options struct {
	Format Format
	// Prefix goes before each session's id in its conversation's name;
	// Name, when set, makes the name instead.
	Prefix string
	Name   func(NameData) (string, error)
	// NameText is Name's template, as given (cursors record it).
	NameText string
	// Branches imports the branches off the active one as conversations
	// of their own.
	Branches bool
	// Chunk is how many records one transaction appends at most (0:
	// 4,000); a chunk also ends past 8 MiB of text.
	Chunk int
	// Warn tells a person something (stderr).
	Warn func(msg string)
	// Changed is called once per conversation that got new records (or
	// merges), with how many were added, once its source is done.
	Changed func(conv string, added int)
	// Stored is told of each chunk committed: how many records it added
	// or merged (an interrupted import says what it stored).
	Stored func(n int)
	// Progress is told the bytes of each source done.
	Progress func(n int64)
	// Guard, when set, readies each record for the store or refuses it
	// (convo's hides the provider keys it holds); a refusal stops the
	// import, the chunks stored before it kept with their cursors.
	Guard func(*transcript.Record) error
	// LongRead, when set, is called before a source of longRead bytes or
	// more is read, and the function it returns once it is done: its
	// index and the chunks in flight are most of what is live meanwhile,
	// which a soft memory limit can keep the garbage from doubling.
	LongRead func(size int64) (done func())
}

// longRead is the size of a source that LongRead is told of.
const longRead = 64 << 20

// NameData is what --name's template sees.
type NameData struct{ Tool, Session, Title, Project string }

// Tally counts what an import did.
type Tally struct {
	Files, Unchanged, Rewritten    int
	Sessions, Conversations, Forks int
	Inserted, Merged, Skipped, Cut int
	NotImported                    int
	// Lost: of NotImported, what a provider would need (--strict).
	Lost int
	// Deleted: records left out because convo deleted them before.
	Deleted int
	// Kinds counts NotImported by kind (Known says which are no loss).
	Kinds   map[string]int
	changed map[string]bool // the conversations that got records
}

// Known reports whether a kind of what was not imported is known and kept
// elsewhere, or of no use to a provider: no loss.
func Known(kind string) bool { return known[kind] }

// Importer imports files of one format into one store.
type Importer struct {
	st      Store
	ids     *transcript.IDs
	opt     Options
	cursors map[[2]string]store.ImportCursor
	sources map[string][]store.ImportCursor
	// byConv is each conversation's latest cursor of this import's kind,
	// whatever the source: exports are matched by conversation.
	byConv map[string]store.ImportCursor
	Tally  Tally
}

// New loads the store's import cursors (one query, so that a thousand
// unchanged files cost no query each).
func New(ctx context.Context, st Store, opt Options) (*Importer, error) {
	if opt.Chunk <= 0 {
		opt.Chunk = 4000
	}
	if opt.Warn == nil {
		opt.Warn = func(string) {}
	}
	im := &Importer{st: st, ids: transcript.NewIDs(), opt: opt,
		cursors: map[[2]string]store.ImportCursor{}, sources: map[string][]store.ImportCursor{},
		byConv: map[string]store.ImportCursor{}}
	err := st.ImportCursors(ctx, "", func(c store.ImportCursor) error {
		im.cursors[[2]string{c.Source, c.Conversation}] = c
		im.sources[c.Source] = append(im.sources[c.Source], c)
		if c.Tool == im.tool() && c.Updated >= im.byConv[c.Conversation].Updated {
			im.byConv[c.Conversation] = c
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return im, nil
}

// Files expands paths: a file is taken as given, a directory walked for
// the format's files, in lexical order.
func Files(f Format, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		// WalkDir takes its root as Lstat sees it: a symbolic link to a
		// directory would be walked as the link alone, finding nothing. A
		// trailing separator makes Lstat follow it; the files keep the
		// path as given (link/x.jsonl).
		root := p
		if !os.IsPathSeparator(root[len(root)-1]) {
			root += string(filepath.Separator)
		}
		err = filepath.WalkDir(root, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !f.Match(q) {
				return nil
			}
			// A link to a session file is that file (a session linked in
			// from elsewhere); links to directories are not followed, so
			// that a link loop cannot walk forever.
			if d.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(q); err == nil && fi.Mode().IsRegular() {
					out = append(out, q)
				}
				return nil
			}
			if d.Type().IsRegular() {
				out = append(out, q)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// notRegular refuses a PATH that is no regular file (a named pipe, a
// process substitution's /dev/fd/N, a device): its size says nothing of
// what it holds and it cannot be read twice, so the import would read
// nothing (or, /dev/zero, never end). Not the format's (exit 3), so the
// other files are imported; stdin (-) reads a pipe.
func notRegular(abs string, m fs.FileMode) error {
	what := "not a regular file but a device or socket"
	if m&fs.ModeNamedPipe != 0 {
		what = "not a regular file but a pipe: give it on stdin instead (convo import --from FORMAT - < PATH)"
	}
	return fmt.Errorf("%s: %w", abs, inputErr(0, "", "%s", what))
}

// fileState is the source file as stat saw it.
type fileState struct{ size, mtime int64 }

// ImportFile imports one file.
func (im *Importer) ImportFile(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	// Stat before Open: opening a named pipe no one writes to blocks.
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		im.Tally.Files++
		return notRegular(abs, fi.Mode())
	}
	f, err := os.Open(abs)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	im.Tally.Files++
	if !fi.Mode().IsRegular() { // replaced since the Stat above
		return notRegular(abs, fi.Mode())
	}
	src := &Source{Path: abs, R: f, Size: fi.Size(), Branches: im.opt.Branches, progress: im.opt.Progress}
	defer src.reached(fi.Size()) // the rest: skipped, or read by offsets
	st := fileState{fi.Size(), fi.ModTime().UnixNano()}
	if curs := im.mine(abs); len(curs) > 0 {
		same := true
		for _, c := range curs {
			same = same && c.Size == st.size && c.MTime == st.mtime
		}
		if same {
			im.Tally.Unchanged++
			return nil
		}
	}
	if im.opt.Format.Growing() {
		for _, c := range im.mine(abs) {
			if c.Size > st.size || c.Head != headHash(src, c.Size) {
				im.Tally.Rewritten++
				im.opt.Warn(fmt.Sprintf("%s: rewritten in place since it was imported (%d bytes then, %d now): not imported again (clear its conversation %s, then import with --again %s, to import it afresh)",
					abs, c.Size, st.size, c.Conversation, c.Conversation))
				return nil
			}
		}
		if _, ok := im.opt.Format.(Resumer); ok {
			src.at = resumeAt(src, im.mine(abs))
		}
	}
	return im.importSource(ctx, src, st)
}

// ImportFiles imports each file of paths in turn. A file that is not the
// format's (a *transcript.InputError) is named through Options.Warn and
// counted in bad, and the import goes on with the next; anything else (the
// store, the disk, a signal) stops it at once.
func (im *Importer) ImportFiles(ctx context.Context, paths []string) (bad int, err error) {
	for _, p := range paths {
		err := im.ImportFile(ctx, p)
		var ie *transcript.InputError
		if errors.As(err, &ie) && ctx.Err() == nil {
			bad++
			im.opt.Warn(err.Error())
			continue
		}
		if err != nil {
			return bad, err
		}
	}
	return bad, nil
}

// mine returns the cursors of the file at abs this import made or would
// make: of its format and naming.
func (im *Importer) mine(abs string) []store.ImportCursor {
	var out []store.ImportCursor
	for _, c := range im.sources[abs] {
		if c.Tool == im.tool() {
			out = append(out, c)
		}
	}
	return out
}

// tool is what a cursor says made it: the format, and the naming when it
// is not the default (another --prefix makes other conversations of the
// same file, which an unchanged file must not skip).
func (im *Importer) tool() string {
	switch {
	case im.opt.NameText != "":
		return im.opt.Format.Name() + " --name " + im.opt.NameText
	case im.opt.Prefix != "":
		return im.opt.Format.Name() + " --prefix " + im.opt.Prefix
	}
	return im.opt.Format.Name()
}

// ImportStream imports a source read from r (stdin), spooled to a
// temporary file first: decoders read a source more than once.
func (im *Importer) ImportStream(ctx context.Context, r io.Reader) error {
	// A device on stdin (< /dev/zero, a terminal) would be spooled
	// without end: refused as a device PATH is.
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&fs.ModeDevice != 0 {
			return fmt.Errorf("-: %w", inputErr(0, "", "stdin is a device, not a file or a pipe"))
		}
	}
	tmp, err := os.CreateTemp("", "convo-import-*")
	if err != nil {
		return err
	}
	// Unlinked at once where the system allows it (the open file stays
	// readable): a process killed meanwhile leaves no copy behind.
	if os.Remove(tmp.Name()) != nil {
		defer os.Remove(tmp.Name())
	}
	defer tmp.Close()
	n, err := io.Copy(tmp, r)
	if err != nil {
		return err
	}
	im.Tally.Files++
	src := &Source{Path: "-", R: tmp, Size: n, Branches: im.opt.Branches}
	return im.importSource(ctx, src, fileState{size: n, mtime: -1})
}

func (im *Importer) importSource(ctx context.Context, src *Source, st fileState) error {
	notes := &Notes{}
	src.notes = notes
	if im.opt.LongRead != nil && src.Size >= longRead {
		defer im.opt.LongRead(src.Size)()
	}
	emit := func(s *Session) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return im.session(ctx, src, st, s)
	}
	var err error
	if r, ok := im.opt.Format.(Resumer); ok && src.at != nil {
		err = r.Resume(src, *src.at, emit)
	}
	if src.at == nil || errors.Is(err, errRestart) {
		// Resume says so before it emits a session: nothing is stored.
		*notes, src.at = Notes{}, nil
		err = im.opt.Format.Decode(src, emit)
	}
	for _, s := range notes.skipped {
		im.opt.Warn(fmt.Sprintf("%s: %s", src.Path, s))
	}
	if n := notes.Len(); n > 0 {
		im.Tally.NotImported += n
		im.Tally.Lost += notes.Lost()
		if im.Tally.Kinds == nil {
			im.Tally.Kinds = map[string]int{}
		}
		for k, v := range notes.n {
			im.Tally.Kinds[k] += v
		}
		lost, kn := notes.split()
		switch {
		case kn == "":
			im.opt.Warn(fmt.Sprintf("%s: not imported: %s", src.Path, lost))
		case lost == "":
			im.opt.Warn(fmt.Sprintf("%s: not imported, of no use to a provider or kept elsewhere: %s", src.Path, kn))
		default:
			im.opt.Warn(fmt.Sprintf("%s: not imported: %s; of no use to a provider or kept elsewhere: %s", src.Path, lost, kn))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", src.Path, err)
	}
	return nil
}

// headBytes is how much of a file's head its cursor hashes.
const headBytes = 4096

// headHash hashes the first min(n, headBytes) bytes of src.
func headHash(src *Source, n int64) string {
	n = min(n, headBytes, src.Size)
	if n < 0 {
		n = 0
	}
	h := sha256.New()
	_, _ = io.Copy(h, io.NewSectionReader(src.R, 0, n))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func (t *Tally) add(conv string, res store.AppendResult) {
	t.Inserted += res.Inserted
	t.Merged += res.Merged
	t.Skipped += res.Skipped
	t.Deleted += res.Deleted
	if res.Inserted+res.Merged > 0 {
		if t.changed == nil {
			t.changed = map[string]bool{}
		}
		if !t.changed[conv] {
			t.Conversations++
		}
		t.changed[conv] = true
	}
}
