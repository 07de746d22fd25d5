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
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}
