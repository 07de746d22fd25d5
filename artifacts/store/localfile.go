package store

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes a local file that is not part of a run's storage — an
// sbatch script, a generated input, an export beside the run — the way the
// local store writes an object: fn's bytes go through a buffer into a
// temporary file in the same folder, which is synced, given perm and
// renamed into place, so that a reader never sees half a file and a killed
// writer leaves at most a temporary, never a short file under the name. On
// an error the temporary is removed and path is untouched.
func WriteFile(path string, perm fs.FileMode, fn func(io.Writer) error) error {
	f, err := CreateFile(path, perm)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// LocalFile is a local file being written as WriteFile writes one, for a
// writer that keeps several open at once (an export's run file per
// system): its bytes reach the name only at Commit.
type LocalFile struct {
	path, tmp string
	perm      fs.FileMode
	f         *os.File
	w         *bufio.Writer
}

// CreateFile starts writing path: a temporary beside it, buffered.
func CreateFile(path string, perm fs.FileMode) (*LocalFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &LocalFile{path: path, tmp: f.Name(), perm: perm, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// Write implements io.Writer.
func (l *LocalFile) Write(p []byte) (int, error) {
	if l.f == nil {
		return 0, fmt.Errorf("write %s: %w", l.path, os.ErrClosed)
	}
	return l.w.Write(p)
}

// Commit flushes, syncs, sets the mode and renames the file into place;
// on an error the temporary is removed and the name untouched.
func (l *LocalFile) Commit() error {
	if l.f == nil {
		return fmt.Errorf("write %s: %w", l.path, os.ErrClosed)
	}
	err := l.w.Flush()
	if err == nil {
		err = l.f.Sync()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err == nil {
		err = os.Chmod(l.tmp, l.perm)
	}
	if err == nil {
		err = os.Rename(l.tmp, l.path)
	}
	if err != nil {
		os.Remove(l.tmp)
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	syncDir(filepath.Dir(l.path))
	return nil
}

// Abort removes the temporary, leaving the name untouched; after Commit
// it does nothing, so a writer may defer it.
func (l *LocalFile) Abort() {
	if l.f == nil {
		return
	}
	l.f.Close()
	l.f = nil
	os.Remove(l.tmp)
}
