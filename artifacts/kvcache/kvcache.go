// Package kvcache keeps small values by key in the run's storage: one
// write-once object per key under a prefix. The LLM client caches responses
// here, so a rerun of a finished or interrupted shard repeats no call, on
// local disk and on S3 alike, and two shards racing on one key are harmless.
package kvcache

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/store"
)

// Cache is a key-value view of a store prefix.
type Cache struct {
	st     store.Store // written, and read first
	under  store.Store // read when st lacks a key; nil for none
	prefix string
}

// New returns a cache under prefix (e.g. "<run>/_cache/llm").
func New(st store.Store, prefix string) *Cache {
	return &Cache{st: st, prefix: strings.TrimSuffix(prefix, "/")}
}

// Layered returns a cache that reads from top, then from under, and writes
// to top only: `saber verify` reads the run's answers and keeps any new
// one in its scratch storage, never in the run's.
func Layered(under, top store.Store, prefix string) *Cache {
	return &Cache{st: top, under: under, prefix: strings.TrimSuffix(prefix, "/")}
}

// objectKey spreads keys over 256 directories so no listing gets huge.
func (c *Cache) objectKey(key string) (string, error) {
	if len(key) < 3 || strings.ContainsAny(key, "/.") {
		return "", fmt.Errorf("kvcache: bad key %q (want a hex digest)", key)
	}
	return c.prefix + "/" + key[:2] + "/" + key, nil
}

// URI is where key's value is (or would be) written, for a message that
// points at it.
func (c *Cache) URI(key string) string {
	k, err := c.objectKey(key)
	if err != nil {
		return c.st.URI(c.prefix) + " (bad key " + key + ")"
	}
	return c.st.URI(k)
}

// Get returns the value of key; ok is false when it is absent.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	k, err := c.objectKey(key)
	if err != nil {
		return nil, false, err
	}
	b, err := store.ReadAll(ctx, c.st, k)
	if errors.Is(err, store.ErrNotExist) && c.under != nil {
		b, err = store.ReadAll(ctx, c.under, k)
	}
	if errors.Is(err, store.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Put stores val under key, write-once: if another writer stored the key
// first, its value stands (both came from the same request).
func (c *Cache) Put(ctx context.Context, key string, val []byte) error {
	k, err := c.objectKey(key)
	if err != nil {
		return err
	}
	_, err = store.Put(ctx, c.st, k, val, store.Once)
	if errors.Is(err, store.ErrExist) {
		return nil
	}
	return err
}
