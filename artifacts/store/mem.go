package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// NewMem returns an empty in-memory Store with the same contracts as the
// disk and S3 stores, for unit tests of code that takes a Store. It is safe
// for concurrent use; its URIs are mem://key.
func NewMem() Store {
	return &memStore{objs: map[string][]byte{}}
}

type memStore struct {
	mu   sync.Mutex
	objs map[string][]byte // committed contents are never mutated
}

func (s *memStore) URI(key string) string { return "mem://" + key }

func (s *memStore) get(ctx context.Context, op, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, s.URI(key), err)
	}
	s.mu.Lock()
	data, ok := s.objs[key]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s %s: %w", op, s.URI(key), ErrNotExist)
	}
	return data, nil
}

type memObject struct {
	*bytes.Reader
}

func (o memObject) Close() error { return nil }

func (s *memStore) Open(ctx context.Context, key string) (Object, error) {
	data, err := s.get(ctx, "open", key)
	if err != nil {
		return nil, err
	}
	return memObject{bytes.NewReader(data)}, nil
}

func (s *memStore) Stat(ctx context.Context, key string) (Info, error) {
	data, err := s.get(ctx, "stat", key)
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: int64(len(data))}, nil
}

func (s *memStore) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", s.URI(prefix), err)
	}
	var out []Info
	s.mu.Lock()
	for k, v := range s.objs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, Info{Key: k, Size: int64(len(v))})
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (s *memStore) Create(ctx context.Context, key string, mode Mode) (Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.URI(key), err)
	}
	return &memWriter{s: s, ctx: ctx, key: key, mode: mode}, nil
}

func (s *memStore) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", s.URI(key), err)
	}
	s.mu.Lock()
	delete(s.objs, key)
	s.mu.Unlock()
	return nil
}

type memWriter struct {
	s    *memStore
	ctx  context.Context
	key  string
	mode Mode
	buf  bytes.Buffer
	done bool
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("write %s: writer already committed or aborted", w.s.URI(w.key))
	}
	return w.buf.Write(p)
}

func (w *memWriter) Commit() (Info, error) {
	if w.done {
		return Info{}, fmt.Errorf("commit %s: writer already committed or aborted", w.s.URI(w.key))
	}
	w.done = true
	if err := w.ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("commit %s: %w", w.s.URI(w.key), err)
	}
	data := bytes.Clone(w.buf.Bytes())
	w.buf = bytes.Buffer{}
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if _, ok := w.s.objs[w.key]; ok && w.mode == Once {
		return Info{}, fmt.Errorf("commit %s: %w", w.s.URI(w.key), ErrExist)
	}
	w.s.objs[w.key] = data
	return Info{Key: w.key, Size: int64(len(data))}, nil
}

func (w *memWriter) Abort() error {
	w.done = true
	w.buf = bytes.Buffer{}
	return nil
}
