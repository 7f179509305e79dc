package importer

import (
	"errors"
	"io/fs"
	"os"
)

// Inputs are what the PATH arguments of an import name.
type Inputs struct {
	Files []string // the files, a directory's as Files finds them
	Stdin bool     // - asks for stdin too
	Size  int64    // the files' bytes, what a progress bar counts
}

// MissingPathError is a PATH argument that does not exist.
type MissingPathError struct{ Path string }

func (e *MissingPathError) Error() string { return e.Path + ": no such file or directory" }

func (e *MissingPathError) Unwrap() error { return fs.ErrNotExist }

// ReadPaths expands the PATH arguments paths for f: a file as given, a
// directory walked for f's files (Files), - for stdin. A path that does
// not exist is a *MissingPathError.
func ReadPaths(f Format, paths []string) (Inputs, error) {
	var in Inputs
	for _, p := range paths {
		if p == "-" {
			in.Stdin = true
			continue
		}
		got, err := Files(f, []string{p})
		if errors.Is(err, fs.ErrNotExist) {
			return Inputs{}, &MissingPathError{Path: p}
		}
		if err != nil {
			return Inputs{}, err
		}
		in.Files = append(in.Files, got...)
	}
	for _, p := range in.Files {
		// A file gone since the walk is the import's to report.
		if fi, err := os.Stat(p); err == nil {
			in.Size += fi.Size()
		}
	}
	return in, nil
}
