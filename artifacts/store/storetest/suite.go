// Package storetest holds the conformance suite every store.Store passes,
// and the gate for tests that need a real S3-compatible server.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/store"
)

// S3Env returns AWS_ENDPOINT_URL_S3, or skips the test when it is unset —
// except under CI=true, where a missing server must fail the build rather
// than silently skip the real-server tests. Start one with
//
//	bash .ci/s3-start.sh && . /tmp/saber-ci/s3/env.sh
func S3Env(t testing.TB) (endpoint string) {
	t.Helper()
	ep := os.Getenv("AWS_ENDPOINT_URL_S3")
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no S3 server: AWS_ENDPOINT_URL_S3 unset")
		}
		t.Skip("no S3 server: AWS_ENDPOINT_URL_S3 unset (bash .ci/s3-start.sh && . /tmp/saber-ci/s3/env.sh)")
	}
	return ep
}

// S3URI gates on S3Env, makes sure the test bucket exists
// ($SABER_TEST_S3_BUCKET, default saber-test) and returns a fresh
// s3://bucket/prefix for this test, whose objects are deleted at cleanup.
func S3URI(t testing.TB, opts store.Options) string {
	t.Helper()
	S3Env(t)
	bucket := os.Getenv("SABER_TEST_S3_BUCKET")
	if bucket == "" {
		bucket = "saber-test"
	}
	ctx := context.Background()
	if err := store.EnsureBucket(ctx, "s3://"+bucket, opts); err != nil {
		t.Fatal(err)
	}
	uri := fmt.Sprintf("s3://%s/test-%s-%s", bucket, time.Now().UTC().Format("20060102T150405"), rand.Text()[:10])
	t.Cleanup(func() {
		st, err := store.Open(ctx, uri, opts)
		if err != nil {
			t.Error(err)
			return
		}
		infos, err := st.List(ctx, "")
		if err != nil {
			t.Error(err)
		}
		for _, in := range infos {
			if err := st.Delete(ctx, in.Key); err != nil {
				t.Error(err)
			}
		}
	})
	return uri
}

// Run checks the store.Store contracts. newStore must return an empty store
// (a fresh root); it is called once per subtest.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	ctx := context.Background()

	t.Run("RoundTrip", func(t *testing.T) {
		st := newStore(t)
		want := []byte("hello, saber\n")
		info, err := store.Put(ctx, st, "a/b/c.txt", want, store.Replace)
		if err != nil {
			t.Fatal(err)
		}
		if info != (store.Info{Key: "a/b/c.txt", Size: int64(len(want))}) {
			t.Errorf("Put info = %+v", info)
		}
		mustRead(t, st, "a/b/c.txt", want)
		if _, err := store.Put(ctx, st, "empty", nil, store.Replace); err != nil {
			t.Fatal(err)
		}
		mustRead(t, st, "empty", []byte{})
	})

	t.Run("ReadAt", func(t *testing.T) {
		st := newStore(t)
		data := randBytes(t, 3<<20+123) // spans several read blocks on S3
		mustPut(t, st, "obj", data, store.Replace)
		obj, err := st.Open(ctx, "obj")
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		if obj.Size() != int64(len(data)) {
			t.Fatalf("Size = %d, want %d", obj.Size(), len(data))
		}
		n := int64(len(data))
		for _, c := range []struct{ off, len int64 }{
			{0, 4}, {n - 8, 8}, {n - 1, 1}, {1<<20 - 3, 10}, {12345, 2 << 20}, {0, n}, {5, 100},
		} {
			p := make([]byte, c.len)
			got, err := obj.ReadAt(p, c.off)
			if got != len(p) || (err != nil && err != io.EOF) {
				t.Fatalf("ReadAt(%d bytes @%d) = %d, %v", c.len, c.off, got, err)
			}
			if !bytes.Equal(p, data[c.off:c.off+c.len]) {
				t.Fatalf("ReadAt(%d bytes @%d): wrong data", c.len, c.off)
			}
		}
		// Past the end: short read with io.EOF, as io.ReaderAt requires.
		p := make([]byte, 10)
		if got, err := obj.ReadAt(p, n-4); got != 4 || err != io.EOF || !bytes.Equal(p[:4], data[n-4:]) {
			t.Errorf("ReadAt across end = %d, %v", got, err)
		}
		if got, err := obj.ReadAt(p, n); got != 0 || err != io.EOF {
			t.Errorf("ReadAt at end = %d, %v", got, err)
		}
		if _, err := obj.ReadAt(p, -1); err == nil {
			t.Error("ReadAt at -1: no error")
		}
		// Concurrent ReadAt, as io.ReaderAt allows.
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				p := make([]byte, 1000+g*300)
				for i := range 40 {
					off := (int64(g)*7919 + int64(i)*104729) % (n - int64(len(p)))
					if _, err := obj.ReadAt(p, off); err != nil {
						t.Errorf("concurrent ReadAt @%d: %v", off, err)
						return
					}
					if !bytes.Equal(p, data[off:off+int64(len(p))]) {
						t.Errorf("concurrent ReadAt @%d: wrong data", off)
						return
					}
				}
			})
		}
		wg.Wait()
		all, err := io.ReadAll(store.Reader(obj))
		if err != nil || !bytes.Equal(all, data) {
			t.Errorf("Reader: %d bytes, %v", len(all), err)
		}
	})

	t.Run("Stat", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "dir/x", []byte("12345"), store.Replace)
		info, err := st.Stat(ctx, "dir/x")
		if err != nil || info != (store.Info{Key: "dir/x", Size: 5}) {
			t.Errorf("Stat = %+v, %v", info, err)
		}
		for _, key := range []string{"missing", "dir/missing", "dir"} {
			if _, err := st.Stat(ctx, key); !errors.Is(err, store.ErrNotExist) {
				t.Errorf("Stat(%q) = %v, want ErrNotExist", key, err)
			}
			if _, err := st.Open(ctx, key); !errors.Is(err, store.ErrNotExist) {
				t.Errorf("Open(%q) = %v, want ErrNotExist", key, err)
			}
			if _, err := store.ReadAll(ctx, st, key); !errors.Is(err, store.ErrNotExist) {
				t.Errorf("ReadAll(%q) = %v, want ErrNotExist", key, err)
			}
		}
	})

	t.Run("BadKeys", func(t *testing.T) {
		st := newStore(t)
		for _, key := range []string{"", "/abs", "a/../../etc", "a//b", "dir/", "./a", ".tmp-x", "d/.tmp-x"} {
			if _, err := st.Create(ctx, key, store.Replace); err == nil {
				t.Errorf("Create(%q): no error", key)
			}
			if _, err := st.Stat(ctx, key); err == nil {
				t.Errorf("Stat(%q): no error", key)
			}
		}
		if _, err := st.List(ctx, "../"); err == nil {
			t.Error("List(../): no error")
		}
	})

	t.Run("List", func(t *testing.T) {
		st := newStore(t)
		keys := []string{"run/corpus/part-00001", "run/corpus/part-00000", "run/corpus/part-d/x",
			"run/corpus/partial", "run/corpus/other", "run/corpusX", "run/corpus.json", "top"}
		for _, k := range keys {
			mustPut(t, st, k, []byte(k), store.Replace)
		}
		w, err := st.Create(ctx, "run/corpus/part-00002", store.Replace) // never committed
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if _, err := w.Write([]byte("pending")); err != nil {
			t.Fatal(err)
		}
		for prefix, want := range map[string][]string{
			"run/corpus/part-": {"run/corpus/part-00000", "run/corpus/part-00001", "run/corpus/part-d/x"},
			"run/corpus/":      {"run/corpus/other", "run/corpus/part-00000", "run/corpus/part-00001", "run/corpus/part-d/x", "run/corpus/partial"},
			"run/corpus":       {"run/corpus.json", "run/corpus/other", "run/corpus/part-00000", "run/corpus/part-00001", "run/corpus/part-d/x", "run/corpus/partial", "run/corpusX"},
			"":                 slices.Sorted(slices.Values(keys)),
			"nothing/":         nil,
			"run/corpus/zz":    nil,
		} {
			infos, err := st.List(ctx, prefix)
			if err != nil {
				t.Fatalf("List(%q): %v", prefix, err)
			}
			var got []string
			for _, in := range infos {
				got = append(got, in.Key)
				if in.Size != int64(len(in.Key)) {
					t.Errorf("List(%q): %s size %d, want %d", prefix, in.Key, in.Size, len(in.Key))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("List(%q) =\n  %q\nwant\n  %q", prefix, got, want)
			}
		}
	})

	t.Run("Replace", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "k", []byte("first version"), store.Replace)
		mustPut(t, st, "k", []byte("second"), store.Replace)
		mustRead(t, st, "k", []byte("second"))
	})

	t.Run("Once", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "marker/_SUCCESS", []byte("first"), store.Once)
		_, err := store.Put(ctx, st, "marker/_SUCCESS", []byte("second"), store.Once)
		if !errors.Is(err, store.ErrExist) {
			t.Fatalf("second Once commit = %v, want ErrExist", err)
		}
		if !strings.Contains(err.Error(), st.URI("marker/_SUCCESS")) {
			t.Errorf("error %q does not name %s", err, st.URI("marker/_SUCCESS"))
		}
		mustRead(t, st, "marker/_SUCCESS", []byte("first"))
		// Two writers racing: exactly one wins.
		w1, err := st.Create(ctx, "race", store.Once)
		if err != nil {
			t.Fatal(err)
		}
		w2, err := st.Create(ctx, "race", store.Once)
		if err != nil {
			t.Fatal(err)
		}
		w1.Write([]byte("one"))
		w2.Write([]byte("two"))
		if _, err := w1.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := w2.Commit(); !errors.Is(err, store.ErrExist) {
			t.Fatalf("losing racer's Commit = %v, want ErrExist", err)
		}
		mustRead(t, st, "race", []byte("one"))
	})

	t.Run("InvisibleBeforeCommit", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "k", []byte("old"), store.Replace)
		w, err := st.Create(ctx, "k", store.Replace)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("new"))
		mustRead(t, st, "k", []byte("old"))
		w2, err := st.Create(ctx, "fresh", store.Once)
		if err != nil {
			t.Fatal(err)
		}
		w2.Write([]byte("data"))
		if _, err := st.Stat(ctx, "fresh"); !errors.Is(err, store.ErrNotExist) {
			t.Errorf("Stat of uncommitted key = %v, want ErrNotExist", err)
		}
		if info, err := w.Commit(); err != nil || info.Size != 3 {
			t.Fatalf("Commit = %+v, %v", info, err)
		}
		mustRead(t, st, "k", []byte("new"))
		if err := w.Abort(); err != nil {
			t.Errorf("Abort after Commit = %v, want nil", err)
		}
		if _, err := w.Commit(); err == nil {
			t.Error("second Commit: no error")
		}
		if _, err := w.Write([]byte("x")); err == nil {
			t.Error("Write after Commit: no error")
		}
		if _, err := w2.Commit(); err != nil {
			t.Fatal(err)
		}
		mustRead(t, st, "fresh", []byte("data"))
	})

	t.Run("Abort", func(t *testing.T) {
		st := newStore(t)
		w, err := st.Create(ctx, "gone/k", store.Replace)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("discard me"))
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Errorf("second Abort = %v", err)
		}
		if _, err := w.Commit(); err == nil {
			t.Error("Commit after Abort: no error")
		}
		if _, err := st.Stat(ctx, "gone/k"); !errors.Is(err, store.ErrNotExist) {
			t.Errorf("Stat after Abort = %v, want ErrNotExist", err)
		}
		if infos, err := st.List(ctx, ""); err != nil || len(infos) != 0 {
			t.Errorf("List after Abort = %v, %v", infos, err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "d/k", []byte("x"), store.Replace)
		if err := st.Delete(ctx, "d/k"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Stat(ctx, "d/k"); !errors.Is(err, store.ErrNotExist) {
			t.Errorf("Stat after Delete = %v, want ErrNotExist", err)
		}
		if err := st.Delete(ctx, "d/k"); err != nil {
			t.Errorf("Delete of missing = %v, want nil", err)
		}
		if err := st.Delete(ctx, "never/was"); err != nil {
			t.Errorf("Delete of missing = %v, want nil", err)
		}
		// Write-once is about existence: a deleted key can be written again.
		mustPut(t, st, "d/k", []byte("y"), store.Once)
	})

	t.Run("Large", func(t *testing.T) {
		st := newStore(t)
		data := randBytes(t, 12<<20+7)
		w, err := st.Create(ctx, "big/obj", store.Replace)
		if err != nil {
			t.Fatal(err)
		}
		for rest := data; len(rest) > 0; { // in odd-sized writes, as encoders do
			n := min(len(rest), 1<<20+13)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if info, err := w.Commit(); err != nil || info.Size != int64(len(data)) {
			t.Fatalf("Commit = %+v, %v", info, err)
		}
		mustRead(t, st, "big/obj", data)
	})

	t.Run("Canceled", func(t *testing.T) {
		st := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.Stat(cctx, "k"); !errors.Is(err, context.Canceled) {
			t.Errorf("Stat with canceled ctx = %v", err)
		}
		if _, err := st.List(cctx, ""); !errors.Is(err, context.Canceled) {
			t.Errorf("List with canceled ctx = %v", err)
		}
	})
}

// RoundTrip writes n random bytes to key, reads them back and returns them,
// for sizes a store's configuration makes special (multipart thresholds).
func RoundTrip(t *testing.T, st store.Store, key string, n int, mode store.Mode) []byte {
	t.Helper()
	data := randBytes(t, n)
	mustPut(t, st, key, data, mode)
	mustRead(t, st, key, data)
	return data
}

func randBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func mustPut(t testing.TB, st store.Store, key string, data []byte, mode store.Mode) {
	t.Helper()
	info, err := store.Put(context.Background(), st, key, data, mode)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != int64(len(data)) || info.Key != key {
		t.Fatalf("Put(%s) info = %+v", key, info)
	}
}

func mustRead(t testing.TB, st store.Store, key string, want []byte) {
	t.Helper()
	got, err := store.ReadAll(context.Background(), st, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		if len(got) < 64 && len(want) < 64 {
			t.Fatalf("%s = %q, want %q", key, got, want)
		}
		t.Fatalf("%s: got %d bytes, want %d (contents differ)", key, len(got), len(want))
	}
}
