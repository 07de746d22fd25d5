package layout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/store"
)

// File is one object named by a URI: the store holding it and its key there.
type File struct {
	URI   string
	Store store.Store
	Key   string
}

func isRemote(uri string) bool {
	return strings.Contains(uri, "://") && !strings.HasPrefix(uri, "file://")
}

func localPath(uri string) string { return strings.TrimPrefix(uri, "file://") }

// OpenFile resolves a URI that names one file (a local path, file:///abs,
// or s3://bucket/key) with the run's storage options: the store of its
// folder and its key there. It does not check that the file exists.
func OpenFile(ctx context.Context, uri string, opts store.Options) (File, error) {
	if uri == "" {
		return File{}, errors.New("empty path")
	}
	var dir, base string
	if isRemote(uri) {
		i := strings.LastIndex(uri, "/")
		dir, base = uri[:i], uri[i+1:]
	} else {
		dir, base = filepath.Split(localPath(uri))
		if dir == "" {
			dir = "."
		}
	}
	if base == "" {
		return File{}, fmt.Errorf("%s: names a folder, not a file", uri)
	}
	st, err := store.Open(ctx, dir, opts)
	if err != nil {
		return File{}, err
	}
	return File{URI: uri, Store: st, Key: base}, nil
}

// Files resolves a URI that names a file, a folder or a glob pattern to the
// files it names, sorted by URI, with the run's storage options:
//
//   - a glob (*, ? or [ in it): local patterns as filepath.Glob; on S3 the
//     pattern is matched against the names directly in its folder;
//   - a folder (a local directory, or a URI ending in '/', or an S3 prefix
//     with objects under it): every file under it whose key keep accepts
//     (nil keeps all), keys relative to the folder;
//   - anything else: that one file, which must exist.
//
// Nothing found is an error wrapping store.ErrNotExist.
func Files(ctx context.Context, uri string, opts store.Options, keep func(key string) bool) ([]File, error) {
	if uri == "" {
		return nil, errors.New("empty path")
	}
	if strings.ContainsAny(uri[strings.LastIndex(uri, "/")+1:], "*?[") || !isRemote(uri) && strings.ContainsAny(uri, "*?[") {
		return glob(ctx, uri, opts)
	}
	folder := strings.HasSuffix(uri, "/")
	if !isRemote(uri) {
		fi, err := os.Stat(localPath(uri))
		if err != nil {
			return nil, err
		}
		folder = fi.IsDir()
	}
	if !folder {
		f, err := OpenFile(ctx, uri, opts)
		if err != nil {
			return nil, err
		}
		if _, err := f.Store.Stat(ctx, f.Key); err == nil || !errors.Is(err, store.ErrNotExist) || !isRemote(uri) {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", uri, err)
			}
			return []File{f}, nil
		}
		// An S3 URI without a trailing slash may still name a folder.
	}
	root := strings.TrimSuffix(uri, "/")
	st, err := store.Open(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	infos, err := st.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", uri, err)
	}
	var out []File
	for _, in := range infos {
		if keep == nil || keep(in.Key) {
			out = append(out, File{URI: st.URI(in.Key), Store: st, Key: in.Key})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no matching files: %w", uri, store.ErrNotExist)
	}
	return out, nil
}

func glob(ctx context.Context, uri string, opts store.Options) ([]File, error) {
	var uris []string
	if !isRemote(uri) {
		matches, err := filepath.Glob(localPath(uri))
		if err != nil {
			return nil, fmt.Errorf("bad pattern %q: %w", uri, err)
		}
		if len(matches) == 0 {
			// filepath.Glob drops I/O errors: a folder it could not read
			// would read as "matched no files".
			if err := globDirErr(localPath(uri)); err != nil {
				return nil, fmt.Errorf("%q: %w", uri, err)
			}
		}
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				uris = append(uris, m)
			}
		}
	} else {
		i := strings.LastIndex(uri, "/")
		dir, pat := uri[:i], uri[i+1:]
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("bad pattern %q: %w", uri, err)
		}
		st, err := store.Open(ctx, dir, opts)
		if err != nil {
			return nil, err
		}
		infos, err := st.List(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, in := range infos {
			if ok, _ := path.Match(pat, in.Key); ok && !strings.Contains(in.Key, "/") {
				uris = append(uris, dir+"/"+in.Key)
			}
		}
	}
	if len(uris) == 0 {
		return nil, fmt.Errorf("%q matched no files: %w", uri, store.ErrNotExist)
	}
	sort.Strings(uris)
	out := make([]File, 0, len(uris))
	for _, u := range uris {
		f, err := OpenFile(ctx, u, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// globDirErr says why the folder a local pattern's matches would be in
// cannot be listed (permission denied, not a directory), or nil when it
// can or does not exist. That folder is the pattern's leading part without
// wildcards, and each folder below it that the pattern's next elements
// match.
func globDirErr(pattern string) error {
	dir, rest := pattern, ""
	for strings.ContainsAny(dir, "*?[") {
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	dirs := []string{dir}
	elems := strings.Split(rest, string(filepath.Separator))
	for i, el := range elems {
		var next []string
		for _, d := range dirs {
			if _, err := os.ReadDir(d); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return fmt.Errorf("cannot list folder %s: %w", d, err)
			}
			if i == len(elems)-1 {
				continue
			}
			m, _ := filepath.Glob(filepath.Join(d, el))
			for _, x := range m {
				if fi, err := os.Stat(x); err == nil && fi.IsDir() {
					next = append(next, x)
				}
			}
		}
		dirs = next
	}
	return nil
}
