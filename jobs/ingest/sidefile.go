package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
)

// sideFiles reads the side files the rows of one input name (files:),
// through the run's store abstraction, so a local path and an S3 input
// read alike. Each file read is recorded as an input of the shard
// (env.AddFile), so that a changed side file makes the shard stale.
type sideFiles struct {
	ctx    context.Context
	env    *stage.Env
	in     input
	max    int
	stores map[string]store.Store // by folder URI
}

func newSideFiles(ctx context.Context, env *stage.Env, in input) *sideFiles {
	return &sideFiles{ctx: ctx, env: env, in: in, max: Section.Of(env.Config).MaxTextBytes, stores: map[string]store.Store{}}
}

// value replaces v, the path a row gives, with the text of the file it
// names; a reject when the path is absent, no file, or too large; an
// error when the store fails (a transient fault, not the row's).
func (s *sideFiles) value(v value) (value, *dataset.Reject, error) {
	missing := func(format string, args ...any) (value, *dataset.Reject, error) {
		return value{}, &dataset.Reject{Reason: dataset.ReasonMissingFile, Detail: fmt.Sprintf(format, args...)}, nil
	}
	switch {
	case !v.present:
		return value{}, nil, nil // validate rejects a required field as missing
	case v.badUTF8 || v.badType != "" || v.list:
		return v, nil, nil // validate rejects it for what it is
	}
	rel := strings.TrimSpace(v.s)
	if rel == "" {
		return missing("empty side-file path")
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) || strings.Contains(rel, "://") {
		return missing("side-file path %q is not relative to the input file", rel)
	}
	uri, ok := sideURI(s.in.uri, rel)
	if !ok {
		return missing("side-file path %q leaves the bucket of %s", rel, s.in.uri)
	}
	dir, base := uri[:strings.LastIndex(uri, "/")], uri[strings.LastIndex(uri, "/")+1:]
	st, ok := s.stores[dir]
	if !ok {
		f, err := layout.OpenFile(s.ctx, uri, s.env.Config.Storage)
		if err != nil {
			return missing("side file %s: %v", rel, err)
		}
		st, base = f.Store, f.Key
		s.stores[dir] = st
	}
	obj, err := st.Open(s.ctx, base)
	if err != nil {
		if errors.Is(err, store.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) {
			return missing("side file %s: %v", rel, err)
		}
		return value{}, nil, fmt.Errorf("open side file %s: %w", uri, err)
	}
	defer obj.Close()
	if obj.Size() > int64(s.max) {
		return value{}, &dataset.Reject{Reason: dataset.ReasonOversize,
			Detail: fmt.Sprintf("side file %s: %d bytes > max_text_bytes %d", rel, obj.Size(), s.max)}, nil
	}
	b := make([]byte, obj.Size())
	if _, err := io.ReadFull(io.NewSectionReader(obj, 0, obj.Size()), b); err != nil {
		return value{}, nil, fmt.Errorf("read side file %s: %w", uri, err)
	}
	sum := sha256.Sum256(b)
	s.env.AddFile(layout.Object{URI: uri, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))})
	b = bytes.TrimPrefix(b, utf8BOM)
	return value{s: string(b), present: true, badUTF8: !utf8.Valid(b), note: noteIf(!utf8.Valid(b), "side file "+rel)}, nil, nil
}

func noteIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// sideURI resolves rel against the folder of the input at uri: a local
// path (plain or file://) by the file system's rules, an object URI by
// cleaning its key, which must stay inside its bucket.
func sideURI(uri, rel string) (string, bool) {
	if scheme, rest, remote := strings.Cut(uri, "://"); remote && scheme != "file" {
		bucket, key, _ := strings.Cut(rest, "/")
		k := path.Join(path.Dir(key), rel)
		if k == ".." || strings.HasPrefix(k, "../") {
			return "", false
		}
		return scheme + "://" + bucket + "/" + k, true
	}
	local := strings.TrimPrefix(uri, "file://")
	return filepath.ToSlash(filepath.Join(filepath.Dir(local), filepath.FromSlash(rel))), true
}
