package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/importer"
	"github.com/convo-cli/convo/pkg/show"
)

// importOptions are the flags of `convo import`.
type importOptions struct {
	f                       *Factory
	from, prefix, name      string
	branches, strict, jsonO bool
	paths                   []string
	again                   []string
	format                  importer.Format
	tmpl                    *template.Template
}

func newCmdImport(f *Factory, runF func(context.Context, *importOptions) error) *cobra.Command {
	o := &importOptions{f: f}
	cmd := &cobra.Command{
		Use:   "import --from FORMAT PATH...",
		Short: "Import coding-agent sessions and chat-app exports",
		Long: `Import the session files of a coding agent or a chat app's export: each
session (each exported conversation, each sub-agent's session) becomes one
conversation, named after its own id. A PATH is a file, or a directory walked
for the format's files; - reads one file on stdin.

Import is incremental: the store keeps a cursor per source file, so running
it again over the same directory imports only what is new, and skips an
unchanged file without reading it. What convo has no place for (images,
attachments, hook output, snapshots) is counted and named on stderr.

FORMAT is one of: ` + strings.Join(importer.Names(), ", ") + `. This page is the
man page convo-import(1); how each format's fields map to records is in
docs/import.md of convo's source.`,
		Example: `  convo import --from claude-code ~/.claude/projects
  convo import --from codex ~/.codex/sessions --prefix codex-
  convo import --from chatgpt ~/Downloads/chatgpt-export.zip --branches`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var ok bool
			if o.format, ok = importer.Lookup(o.from); !ok {
				return exitcode.Usagef("--from %q: want one of %s", o.from, strings.Join(importer.Names(), ", "))
			}
			if len(args) == 0 {
				return exitcode.Usagef("import reads files: give at least one PATH (- for stdin)")
			}
			if o.name != "" {
				if o.prefix != "" {
					return exitcode.Usagef("--name and --prefix both name conversations: give one")
				}
				var err error
				if o.tmpl, err = template.New("name").Option("missingkey=error").Parse(o.name); err != nil {
					return exitcode.Usagef("--name: %v", err)
				}
			}
			o.paths = args
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return importRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.from, "from", "", "the format: "+strings.Join(importer.Names(), ", "))
	fl.StringVar(&o.prefix, "prefix", "", "put this before each session's id to name its conversation")
	fl.StringVar(&o.name, "name", "", "name conversations with this Go template over .Tool, .Session, .Title, .Project")
	fl.BoolVar(&o.branches, "branches", false, "also import each branch off the active one, as a conversation of its own")
	fl.BoolVar(&o.strict, "strict", false, "exit 3 when anything was lost (after storing the rest): not what is of no use to a provider")
	fl.BoolVar(&o.jsonO, "json", false, "print one JSON object per conversation changed, then the tally (lost and known counted apart)")
	fl.StringSliceVar(&o.again, "again", nil, "import this conversation again, what convo deleted of it (rewind, prune, clear, summarize --delete-originals) included (repeatable)")
	return cmd
}

func importRun(ctx context.Context, o *importOptions) error {
	f := o.f
	in, err := importer.ReadPaths(o.format, o.paths)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitcode.UsageError{Err: err}
	}
	if err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	bar := newImportBar(ctx, f, in.Size)
	rep := &importReport{o: o, out: newLineWriter(f.IO.Out), people: bar.people}
	opt := o.importerOptions(ctx, rep, bar)
	for _, conv := range o.again {
		n, err := s.ImportAgain(ctx, conv)
		if err != nil {
			return err
		}
		if !f.quiet {
			fmt.Fprintf(f.IO.ErrOut, "convo: import --again %s: %d deleted records forgotten, its sources read again\n", f.secrets.Redact(conv), n)
		}
	}
	im, err := importer.New(ctx, s, opt)
	if err != nil {
		return err
	}
	bad, err := im.ImportFiles(ctx, in.Files)
	if err == nil && in.Stdin {
		err = im.ImportStream(ctx, f.IO.In)
	}
	bar.done(err)
	return rep.finish(ctx, &im.Tally, bad, err)
}

// importBar is import's progress bar over the files' bytes, shown at a
// terminal only; people is where messages go meanwhile (above the bar).
type importBar struct {
	progress *mpb.Progress
	bar      *mpb.Bar
	people   io.Writer
}

func newImportBar(ctx context.Context, f *Factory, total int64) *importBar {
	b := &importBar{people: f.IO.ErrOut}
	if f.IO.StderrIsTerminal() && !f.quiet && total > 0 {
		b.progress = mpb.NewWithContext(ctx, mpb.WithOutput(f.IO.ErrOut), mpb.WithWidth(40), mpb.WithAutoRefresh())
		b.bar = b.progress.AddBar(total,
			mpb.PrependDecorators(decor.Name("import "), decor.CountersKibiByte("% .1f/% .1f")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
		b.people = b.progress
	}
	return b
}

func (b *importBar) add(n int64) {
	if b.bar != nil {
		b.bar.IncrInt64(n)
	}
}

// done ends the bar: full, or cut where the import failed.
func (b *importBar) done(err error) {
	if b.bar == nil {
		return
	}
	if err != nil {
		b.bar.Abort(false)
	} else {
		b.bar.SetTotal(-1, true)
	}
	b.progress.Wait()
}

// importerOptions are the importer's options from the flags, reporting
// through rep and bar.
func (o *importOptions) importerOptions(ctx context.Context, rep *importReport, bar *importBar) importer.Options {
	f := o.f
	opt := importer.Options{
		Format: o.format, Prefix: o.prefix, Branches: o.branches, Guard: f.secrets.Guard, LongRead: memlimit.LongRead,
		Warn: func(msg string) {
			if !f.quiet {
				// file names and session ids reach the terminal escaped
				fmt.Fprintf(rep.people, "convo: %s\n", show.EscapeID(f.secrets.Redact(msg)))
			}
		},
		Stored: func(n int) {
			// each chunk commits with its cursor: an interrupt says so
			rep.stored += n
			signals.NotePartial(ctx, "%d records were stored before that, each chunk with its cursor", rep.stored)
		},
		Changed:  rep.changed,
		Progress: bar.add,
	}
	if o.tmpl != nil {
		opt.NameText = o.name
		opt.Name = func(d importer.NameData) (string, error) {
			var b strings.Builder
			if err := o.tmpl.Execute(&b, d); err != nil {
				return "", exitcode.Usagef("--name: %v", err)
			}
			return b.String(), nil
		}
	}
	return opt
}

// importReport prints what an import changed, as it goes, and its tally.
type importReport struct {
	o        *importOptions
	out      lineWriter
	people   io.Writer
	stored   int
	printErr error // the first failure to print: the import goes on
}

func (r *importReport) changed(conv string, n int) {
	if r.o.f.quiet || r.printErr != nil {
		return
	}
	r.printErr = printLine(r.out, importer.ChangedLine(conv, n, r.o.jsonO, show.EscapeID))
}

// finish prints the tally t and says how the import ended: err, else the
// bad files, else --strict's losses.
func (r *importReport) finish(ctx context.Context, t *importer.Tally, bad int, err error) error {
	o, f := r.o, r.o.f
	if !f.quiet {
		fmt.Fprintf(f.IO.ErrOut, "convo: import: %s\n", t.Summary())
	}
	if o.jsonO && !f.quiet && r.printErr == nil {
		r.printErr = printLine(r.out, t.JSON())
	}
	if err != nil {
		return err
	}
	if t.Inserted+t.Merged > 0 {
		signals.NoteStored(ctx, "importing %d records", t.Inserted+t.Merged)
	}
	if err := t.Outcome(bad, o.strict); err != nil {
		return err
	}
	return exitcode.AfterCommit(r.printErr)
}

// printLine writes line and a newline to out, and flushes it.
func printLine(out lineWriter, line []byte) error {
	if _, err := fmt.Fprintf(out, "%s\n", line); err != nil {
		return err
	}
	return out.Flush()
}
