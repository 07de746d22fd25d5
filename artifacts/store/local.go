package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tmpPrefix names the hidden temporaries of uncommitted local writes. They
// live next to their destination so Commit is a same-filesystem rename or
// link; List never shows them. A killed writer leaves one behind, which
// the next writer into that directory removes (sweepTemps).
const tmpPrefix = ".tmp-"

// staleTempAge is how old an unlocked-looking temporary must be before it
// is removed on a filesystem without flock, where a live writer cannot be
// told from a dead one otherwise.
const staleTempAge = 24 * time.Hour

// localStore keeps objects as files under root (absolute, OS separators).
type localStore struct {
	root  string
	swept sync.Map // directories already swept of dead writers' temporaries
	// follow lets a folder inside the root be a symlink that leads out of
	// it (storage.follow_symlinks); by default such a folder is refused.
	follow bool
}

// SymlinkError is a folder inside a local root that is a symlink leading
// out of it. Writes through it would land outside the run, where another
// run or a person keeps other files, so it is refused unless
// storage.follow_symlinks is true: bad input (exit 2).
type SymlinkError struct {
	Op, URI string
	Dir     string // the folder inside the root
	Target  string // where it leads
	Root    string
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s %s: folder %s is a symlink to %s, outside the root %s: refused (set storage.follow_symlinks: true to write and read through it)",
		e.Op, e.URI, e.Dir, e.Target, e.Root)
}

// ExitCode makes SymlinkError a jobs/stage ExitCoder: bad input.
func (e *SymlinkError) ExitCode() int { return exitBadInput }

// inside refuses key when the deepest folder of its path that exists
// resolves, through symlinks, to outside the root. The key's own final
// element may be a symlink (an input file linked into place): a write
// renames over it and a delete removes the link, neither goes through it.
func (s *localStore) inside(op, key string) error {
	if s.follow {
		return nil
	}
	dir := filepath.Dir(s.path(key))
	for len(dir) > len(s.root) {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	if len(dir) <= len(s.root) {
		return nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil // the operation itself reports what is wrong with it
	}
	root, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return nil
	}
	if real == root || strings.HasPrefix(real, root+string(filepath.Separator)) {
		return nil
	}
	return &SymlinkError{Op: op, URI: s.URI(key), Dir: dir, Target: real, Root: s.root}
}

func (s *localStore) path(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

func (s *localStore) URI(key string) string {
	return "file://" + filepath.ToSlash(s.path(key))
}

// pathErr wraps err with the object's URI, dropping the *PathError layer
// (it would repeat the path) but keeping the errno, so errors.Is(err,
// ErrNotExist) still works.
func (s *localStore) pathErr(op, key string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: %w", op, s.URI(key), err)
}

// localObject is an open file; *os.File gives ReadAt (safe for concurrent
// use) and Close.
type localObject struct {
	*os.File
	size int64
}

func (o *localObject) Size() int64 { return o.size }

// Local reports whether obj is a local file: its ReadAt is a system call
// on the page cache, not a request, so reading it twice costs little.
func Local(obj Object) bool {
	_, ok := obj.(*localObject)
	return ok
}

func (s *localStore) Open(ctx context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, s.pathErr("open", key, err)
	}
	if err := s.inside("open", key); err != nil {
		return nil, err
	}
	f, err := os.Open(s.path(key))
	if err != nil {
		return nil, s.pathErr("open", key, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		// A directory is a key prefix, not an object (as on S3).
		err = fmt.Errorf("not a regular file: %w", ErrNotExist)
	}
	if err != nil {
		f.Close()
		return nil, s.pathErr("open", key, err)
	}
	return &localObject{File: f, size: fi.Size()}, nil
}

func (s *localStore) Stat(ctx context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, fmt.Errorf("stat: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, s.pathErr("stat", key, err)
	}
	if err := s.inside("stat", key); err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(s.path(key))
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file: %w", ErrNotExist)
	}
	if err != nil {
		return Info{}, s.pathErr("stat", key, err)
	}
	return Info{Key: key, Size: fi.Size()}, nil
}

// List walks only the directory holding the prefix's last element and the
// subdirectories that can still match, so listing "run/corpus/part-" does
// not walk all of "run".
func (s *localStore) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	start := s.root
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = s.path(prefix[:i])
		// The folder listed is checked as an object in it would be.
		if err := s.inside("list", prefix[:i]+"/x"); err != nil {
			return nil, err
		}
	}
	var out []Info
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
				return fs.SkipAll // nothing written under the prefix yet
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if p != start && !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) || !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := os.Stat(p) // follows symlinks to files
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			out = append(out, Info{Key: key, Size: fi.Size()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.URI(prefix), err)
	}
	// WalkDir's order puts "a/b" before "a.b"; callers want plain key order.
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (s *localStore) Create(ctx context.Context, key string, mode Mode) (Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, s.pathErr("create", key, err)
	}
	if err := s.inside("create", key); err != nil {
		return nil, err
	}
	final := s.path(key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, s.pathErr("create", key, err)
	}
	s.sweepTemps(filepath.Dir(final))
	f, err := createTemp(filepath.Dir(final), filepath.Base(final))
	if err != nil {
		return nil, s.pathErr("create", key, err)
	}
	return &localWriter{s: s, ctx: ctx, key: key, final: final, mode: mode, f: f}, nil
}

// createTemp makes a writer's temporary in dir, named after the object
// (".tmp-part-00003-of-00008.parquet-1234", so a leftover says whose it
// was) and locked for the writer's life: the lock, which the kernel drops
// when the process dies, is what tells sweepTemps a live writer's
// temporary from a dead one's.
func createTemp(dir, base string) (*os.File, error) {
	if len(base) > 100 {
		base = base[:100] // stay far below NAME_MAX
	}
	for try := 0; ; try++ {
		f, err := os.CreateTemp(dir, tmpPrefix+base+"-*")
		if err != nil {
			return nil, err
		}
		if !lockFile(f) || try == 2 {
			return f, nil
		}
		// A sweeper can take the file for a dead writer's in the moment
		// between CreateTemp and the lock; then it is gone from dir, and
		// this writer starts again.
		fi, err1 := os.Stat(f.Name())
		fo, err2 := f.Stat()
		if err1 == nil && err2 == nil && os.SameFile(fi, fo) {
			return f, nil
		}
		f.Close()
	}
}

// sweepTemps removes, once per directory and store, the temporaries that
// killed writers left in dir: those nobody holds a lock on (or, where the
// filesystem has no locks, older than staleTempAge). A live writer's,
// in this process or another, is locked and stays. Best effort: what
// cannot be removed is left, hidden from List as before.
func (s *localStore) sweepTemps(dir string) {
	if _, done := s.swept.LoadOrStore(dir, true); done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) && e.Type().IsRegular() {
			removeIfDead(filepath.Join(dir, e.Name()))
		}
	}
}

func removeIfDead(p string) {
	f, err := os.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	held, ok := tryLock(f)
	if !ok {
		fi, err := f.Stat()
		if err != nil || time.Since(fi.ModTime()) < staleTempAge {
			return
		}
	} else if held {
		return
	}
	// Removed while this lock is held, so a writer that created the file
	// a moment ago finds it gone once it gets the lock, and starts again.
	os.Remove(p)
}

func (s *localStore) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return s.pathErr("delete", key, err)
	}
	if err := s.inside("delete", key); err != nil {
		return err
	}
	if err := os.Remove(s.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s.pathErr("delete", key, err)
	}
	return nil
}

// localWriter writes to a temporary file in the destination directory.
// After Commit or Abort it is finished: the temporary is gone either way.
type localWriter struct {
	s     *localStore
	ctx   context.Context
	key   string
	final string
	mode  Mode
	f     *os.File // nil once finished
	n     int64
}

func (w *localWriter) Write(p []byte) (int, error) {
	if w.f == nil {
		return 0, fmt.Errorf("write %s: writer already committed or aborted", w.s.URI(w.key))
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err != nil {
		return n, w.s.pathErr("write", w.key, err)
	}
	return n, nil
}

// Commit fsyncs the data before it becomes visible, so a crash right after
// Commit cannot leave a complete-looking but empty or short file. Once
// needs a filesystem with hard links (any POSIX one; not some FUSE/SMB).
func (w *localWriter) Commit() (Info, error) {
	if w.f == nil {
		return Info{}, fmt.Errorf("commit %s: writer already committed or aborted", w.s.URI(w.key))
	}
	f, tmp := w.f, w.f.Name()
	w.f = nil
	defer os.Remove(tmp) // no-op after a successful Replace rename
	// Closed only after the rename or link: closing drops the lock that
	// keeps a sweeper from taking the temporary for a dead writer's.
	defer f.Close()
	err := w.ctx.Err()
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600; outputs are shared
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		if w.mode == Once {
			// link(2) fails with EEXIST instead of replacing: atomic write-once.
			err = os.Link(tmp, w.final)
		} else {
			err = os.Rename(tmp, w.final)
		}
	}
	if err != nil {
		return Info{}, w.s.pathErr("commit", w.key, err)
	}
	syncDir(filepath.Dir(w.final))
	return Info{Key: w.key, Size: w.n}, nil
}

func (w *localWriter) Abort() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	f.Close()
	if err := os.Remove(f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return w.s.pathErr("abort", w.key, err)
	}
	return nil
}

// syncDir makes a rename or link durable. Best effort: some filesystems
// refuse fsync on directories, and the data itself is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
