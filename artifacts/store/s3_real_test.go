package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

// These tests run against the server named by AWS_ENDPOINT_URL_S3 (found by
// the SDK itself: Options carry no endpoint), e.g. versitygw from
// .ci/s3-start.sh. Without one they skip, or fail under CI=true.

func openReal(t *testing.T, o store.S3Options) store.Store {
	t.Helper()
	uri := storetest.S3URI(t, store.Options{S3: o})
	st, err := store.Open(context.Background(), uri, store.Options{S3: o})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestS3Real(t *testing.T) {
	storetest.S3Env(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openReal(t, store.S3Options{}) })
}

func TestS3RealMultipart(t *testing.T) {
	storetest.S3Env(t)
	ctx := context.Background()
	st := openReal(t, store.S3Options{MultipartThresholdMiB: 5, PartSizeMiB: 5})
	storetest.RoundTrip(t, st, "big/replace", 12<<20, store.Replace)
	storetest.RoundTrip(t, st, "big/replace", 12<<20+5, store.Replace)
	first := storetest.RoundTrip(t, st, "big/once", 12<<20, store.Once)
	// The second write-once commit is refused at CompleteMultipartUpload.
	second := make([]byte, 12<<20)
	_, err := store.Put(ctx, st, "big/once", second, store.Once)
	if !errors.Is(err, store.ErrExist) {
		t.Fatalf("second multipart Once = %v, want ErrExist", err)
	}
	t.Log(err)
	got, err := store.ReadAll(ctx, st, "big/once")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(first) {
		t.Error("second multipart Once changed the object")
	}
	infos, err := st.List(ctx, "big/")
	if err != nil || len(infos) != 2 {
		t.Errorf("List(big/) = %+v, %v", infos, err)
	}
}

// Reads of an object replaced after Open fail (If-Match on the GETs)
// rather than mixing two versions.
func TestS3RealReplacedWhileOpen(t *testing.T) {
	storetest.S3Env(t)
	ctx := context.Background()
	st := openReal(t, store.S3Options{})
	storetest.RoundTrip(t, st, "obj", 3<<20, store.Replace)
	obj, err := st.Open(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	storetest.RoundTrip(t, st, "obj", 3<<20, store.Replace)
	_, err = obj.ReadAt(make([]byte, 10), 0)
	if err == nil {
		t.Fatal("read of a replaced object: no error")
	}
	t.Log(err)
}

// A real server checks signatures: wrong credentials must fail without the
// error message showing them.
func TestS3RealWrongCredentials(t *testing.T) {
	storetest.S3Env(t)
	ctx := context.Background()
	uri := storetest.S3URI(t, store.Options{})
	goodID := os.Getenv("AWS_ACCESS_KEY_ID")
	for _, c := range []struct{ id, secret string }{
		{goodID, testSecret},    // known key, wrong secret: SignatureDoesNotMatch
		{testKeyID, testSecret}, // unknown key: InvalidAccessKeyId
	} {
		t.Setenv("AWS_ACCESS_KEY_ID", c.id)
		t.Setenv("AWS_SECRET_ACCESS_KEY", c.secret)
		st, err := store.Open(ctx, uri, store.Options{S3: store.S3Options{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		_, err1 := store.Put(ctx, st, "k", []byte("x"), store.Replace)
		_, err2 := st.Stat(ctx, "k")
		_, err3 := st.List(ctx, "")
		// A HEAD answer has no body, so versitygw's 404 for an unknown key
		// reads as not-exist there (AWS answers 403); the others must not.
		for _, err := range []error{err1, err3} {
			if errors.Is(err, store.ErrNotExist) {
				t.Errorf("auth failure reported as not-exist: %v", err)
			}
			// A configuration error (exit 2), not a bug (1) or worth a requeue (75).
			if store.KindOf(err) != store.Config || exitCode(err) != 2 {
				t.Errorf("auth failure: kind %v, exit %d, want config, 2: %v", store.KindOf(err), exitCode(err), err)
			}
		}
		for _, err := range []error{err1, err2, err3} {
			if err == nil {
				t.Fatalf("id %q: wrong secret accepted", c.id)
			}
			t.Log(err)
			for _, s := range []string{c.id, c.secret, "saberLeakCheck"} {
				if s != "" && strings.Contains(err.Error(), s) {
					t.Errorf("error leaks %q: %v", s, err)
				}
			}
		}
	}
}
