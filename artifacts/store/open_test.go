package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
)

func TestOpenURIs(t *testing.T) {
	ctx := context.Background()
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")
	dir := t.TempDir()
	t.Chdir(dir)
	cwd, _ := os.Getwd()
	for uri, want := range map[string]string{
		"rel/dir":                 "file://" + filepath.ToSlash(filepath.Join(cwd, "rel/dir")) + "/k",
		".":                       "file://" + filepath.ToSlash(cwd) + "/k",
		dir + "/abs":              "file://" + filepath.ToSlash(dir) + "/abs/k",
		"file://" + dir + "/f":    "file://" + filepath.ToSlash(dir) + "/f/k",
		"s3://my-bucket":          "s3://my-bucket/k",
		"s3://my-bucket/":         "s3://my-bucket/k",
		"s3://my-bucket/pre/fix/": "s3://my-bucket/pre/fix/k",
		"S3://my-bucket/p":        "s3://my-bucket/p/k",
	} {
		st, err := store.Open(ctx, uri, store.Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", uri, err)
			continue
		}
		if got := st.URI("k"); got != want {
			t.Errorf("Open(%q).URI(k) = %q, want %q", uri, got, want)
		}
	}
	for uri, msg := range map[string]string{
		"":                              "empty",
		"gs://bucket/x":                 `unsupported URI scheme "gs"`,
		"https://u:pw@host/x":           `unsupported URI scheme "https"`,
		"file://host/x":                 "file:///absolute/path",
		"s3://AKIAUSER:s3cr3t@bucket/p": "credentials",
		"s3://AKIAUSER:s3/cr3t@bucket":  "credentials",
		"s3://AKIAUSER@bucket":          "credentials",
		"s3://Bad_Bucket/x":             "invalid bucket name",
		"s3://b/x":                      "invalid bucket name",
		"s3://bucket/a/../b":            "'..'",
	} {
		_, err := store.Open(ctx, uri, store.Options{})
		if err == nil {
			t.Errorf("Open(%q): no error", uri)
			continue
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("Open(%q) = %v, want it to mention %q", uri, err, msg)
		}
		if !strings.Contains(err.Error(), "valid") && !strings.Contains(err.Error(), "credentials") && !strings.Contains(err.Error(), "'..'") {
			t.Errorf("Open(%q) = %v: does not say what is valid", uri, err)
		}
		for _, secret := range []string{"AKIAUSER", "s3cr3t", "cr3t", "pw"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Open(%q) error echoes %q: %v", uri, secret, err)
			}
		}
	}
	// A file where a root directory is expected.
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := store.Open(ctx, f, store.Options{}); err == nil {
		t.Error("Open(a file): no error")
	}
	// S3 options that cannot work.
	for _, o := range []store.S3Options{{PartSizeMiB: 4}, {MaxAttempts: -1}, {Endpoint: "http://k:s@127.0.0.1:1"}} {
		if _, err := store.Open(ctx, "s3://bucket", store.Options{S3: o}); err == nil {
			t.Errorf("Open with %+v: no error", o)
		} else if strings.Contains(err.Error(), "k:s@") {
			t.Errorf("error echoes endpoint credentials: %v", err)
		}
	}
}
