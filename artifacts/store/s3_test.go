package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

// Recognisable credentials: no error message may ever contain them.
const (
	testKeyID  = "AKIASABERLEAKCHECK01"
	testSecret = "saberLeakCheck/Secret+0123456789abcdefXYZ"
)

// requests counts what reached the fake server.
type requests struct{ gets, parts atomic.Int64 }

// fakeS3 starts an in-process gofakes3 server and points the SDK's
// standard credential chain at the test credentials.
func fakeS3(t *testing.T) store.S3Options {
	o, _ := fakeS3Counting(t)
	return o
}

func fakeS3Counting(t *testing.T) (store.S3Options, *requests) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	var n requests
	fake := gofakes3.New(s3mem.New()).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
			n.gets.Add(1)
		}
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") {
			n.parts.Add(1)
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return store.S3Options{Endpoint: srv.URL, MaxAttempts: 2}, &n
}

var bucketSeq atomic.Int64

// newFakeStore returns a store in a fresh bucket (made by EnsureBucket,
// twice, to check that an existing bucket is fine).
func newFakeStore(t *testing.T, o store.S3Options) store.Store {
	t.Helper()
	ctx := context.Background()
	uri := fmt.Sprintf("s3://bucket-%d/some/prefix", bucketSeq.Add(1))
	for range 2 {
		if err := store.EnsureBucket(ctx, uri, store.Options{S3: o}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(ctx, uri, store.Options{S3: o})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestS3Fake(t *testing.T) {
	o := fakeS3(t)
	storetest.Run(t, func(t *testing.T) store.Store { return newFakeStore(t, o) })
}

func TestS3FakeMultipart(t *testing.T) {
	o, n := fakeS3Counting(t)
	o.MultipartThresholdMiB, o.PartSizeMiB = 5, 5
	st := newFakeStore(t, o)
	storetest.RoundTrip(t, st, "big/obj", 12<<20+1, store.Replace)
	if got := n.parts.Load(); got != 3 {
		t.Errorf("12 MiB in 5 MiB parts: %d UploadPart calls, want 3", got)
	}
	storetest.RoundTrip(t, st, "big/obj", 11<<20, store.Replace) // overwrite
	storetest.RoundTrip(t, st, "exact", 5<<20, store.Once)       // at the threshold: one part
	storetest.RoundTrip(t, st, "small", 5<<20-1, store.Once)     // below: PutObject
	if got := n.parts.Load(); got != 3+3+1 {
		t.Errorf("UploadPart calls = %d, want 7", got)
	}
	t.Run("Once", func(t *testing.T) {
		// gofakes3 v1.2.0 honours If-None-Match on PutObject but ignores it on
		// CompleteMultipartUpload; s3_real_test.go covers this on a real server.
		t.Skip("gofakes3 ignores If-None-Match on CompleteMultipartUpload")
	})
}

// Many small reads near each other cost one GET per 1 MiB block, not one each.
func TestS3FakeReadCache(t *testing.T) {
	ctx := context.Background()
	o, n := fakeS3Counting(t)
	st := newFakeStore(t, o)
	data := storetest.RoundTrip(t, st, "obj", 3<<20, store.Replace)
	obj, err := st.Open(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	before := n.gets.Load()
	p := make([]byte, 100)
	for off := int64(len(data)) - 100; off > int64(len(data))-2<<20; off -= 997 {
		if _, err := obj.ReadAt(p, off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if !bytes.Equal(p, data[off:off+100]) {
			t.Fatalf("wrong data at %d", off)
		}
	}
	if got := n.gets.Load() - before; got > 3 {
		t.Errorf("~2100 small reads over 2 MiB took %d GETs, want <= 3", got)
	}
}

// The prefix given in the URI isolates stores in one bucket.
func TestS3FakePrefix(t *testing.T) {
	ctx := context.Background()
	o := fakeS3(t)
	if err := store.EnsureBucket(ctx, "s3://shared", store.Options{S3: o}); err != nil {
		t.Fatal(err)
	}
	a, _ := store.Open(ctx, "s3://shared/a", store.Options{S3: o})
	ab, _ := store.Open(ctx, "s3://shared/ab", store.Options{S3: o})
	root, _ := store.Open(ctx, "s3://shared", store.Options{S3: o})
	if _, err := store.Put(ctx, a, "k", []byte("1"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, ab, "k", []byte("2"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if infos, err := a.List(ctx, ""); err != nil || len(infos) != 1 || infos[0].Key != "k" {
		t.Errorf("a.List = %+v, %v", infos, err)
	}
	if infos, err := root.List(ctx, ""); err != nil || len(infos) != 2 || infos[0].Key != "a/k" || infos[1].Key != "ab/k" {
		t.Errorf("root.List = %+v, %v", infos, err)
	}
	if a.URI("k") != "s3://shared/a/k" {
		t.Errorf("URI = %s", a.URI("k"))
	}
}

// Failures of every kind: the messages name the call and URI and never
// contain the access key id or the secret.
func TestS3ErrorsCarryNoCredentials(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, what string, err error, wantSub ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		msg := err.Error()
		t.Logf("%s: %s", what, msg)
		if strings.Contains(msg, testKeyID) || strings.Contains(msg, testSecret) ||
			strings.Contains(msg, "saberLeakCheck") || strings.Contains(msg, "SABERLEAK") {
			t.Errorf("%s: error leaks credentials: %s", what, msg)
		}
		for _, s := range wantSub {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: error %q does not mention %q", what, msg, s)
			}
		}
	}

	t.Run("ClosedPort", func(t *testing.T) {
		o := fakeS3(t)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		o.Endpoint = "http://" + l.Addr().String()
		l.Close()
		o.MaxAttempts = 1
		st, err := store.Open(ctx, "s3://bucket/p", store.Options{S3: o})
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Stat(ctx, "k")
		check(t, "Stat", err, "s3 HeadObject s3://bucket/p/k")
		if errors.Is(err, store.ErrNotExist) {
			t.Errorf("connection refused reported as not-exist: %v", err)
		}
		_, err = st.Open(ctx, "k")
		check(t, "Open", err, "s3 HeadObject s3://bucket/p/k")
		_, err = st.List(ctx, "x/")
		check(t, "List", err, "s3 ListObjectsV2 s3://bucket/p/x/")
		_, err = store.Put(ctx, st, "k", []byte("data"), store.Once)
		check(t, "Put", err, "s3 PutObject s3://bucket/p/k")
		check(t, "Delete", st.Delete(ctx, "k"), "s3 DeleteObject s3://bucket/p/k")
		check(t, "EnsureBucket", store.EnsureBucket(ctx, "s3://bucket", store.Options{S3: o}), "s3://bucket")
	})

	t.Run("Fake", func(t *testing.T) {
		o := fakeS3(t)
		st := newFakeStore(t, o)
		_, err := store.ReadAll(ctx, st, "missing")
		check(t, "ReadAll missing", err, "s3 HeadObject", st.URI("missing"))
		if !errors.Is(err, store.ErrNotExist) {
			t.Errorf("ReadAll missing = %v, want ErrNotExist", err)
		}
		if _, err := store.Put(ctx, st, "once", []byte("1"), store.Once); err != nil {
			t.Fatal(err)
		}
		_, err = store.Put(ctx, st, "once", []byte("2"), store.Once)
		check(t, "Once conflict", err, "s3 PutObject", st.URI("once"))
		nb, err := store.Open(ctx, "s3://no-such-bucket/p", store.Options{S3: o})
		if err != nil {
			t.Fatal(err)
		}
		_, err = nb.List(ctx, "")
		check(t, "List missing bucket", err, "s3 ListObjectsV2 s3://no-such-bucket/p/")
		_, err = store.Put(ctx, nb, "k", []byte("x"), store.Replace)
		check(t, "Put missing bucket", err, "s3 PutObject s3://no-such-bucket/p/k")
		// gofakes3 does not check signatures, so a wrong secret succeeds here;
		// s3_real_test.go covers it against a real server.
	})
}

// The endpoint comes from Options, else from the SDK's own handling of
// AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL.
func TestS3EndpointFromEnv(t *testing.T) {
	fake := fakeS3(t).Endpoint
	unset := func(t *testing.T, vars ...string) {
		for _, v := range vars {
			t.Setenv(v, "") // restores the old value after the test
			os.Unsetenv(v)
		}
	}
	for _, c := range []struct{ env, envURL, opt string }{
		{"AWS_ENDPOINT_URL_S3", fake, ""},
		{"AWS_ENDPOINT_URL", fake, ""},
		{"AWS_ENDPOINT_URL_S3", "http://127.0.0.1:1", fake}, // Options win
	} {
		t.Run(c.env, func(t *testing.T) {
			unset(t, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
			t.Setenv(c.env, c.envURL)
			st := newFakeStore(t, store.S3Options{Endpoint: c.opt, MaxAttempts: 1})
			storetest.RoundTrip(t, st, "k", 10, store.Replace)
		})
	}
}
