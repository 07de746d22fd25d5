package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// validURIs is repeated in every URI error so a typo is fixed in one go.
const validURIs = "valid: a local path, file:///abs/dir, s3://bucket[/prefix]"

var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// Open returns the Store rooted at uri:
//
//	relative/or/absolute/path   local disk (made absolute)
//	file:///abs/dir             local disk; the path is taken literally, not %-decoded
//	s3://bucket[/prefix]        S3 or an S3-compatible server, see S3Options
//
// Open does not touch the network or create anything: a missing local root
// or bucket shows up as errors on first use. Error messages never echo
// userinfo, so a URI pasted with credentials in it does not end up in logs.
func Open(ctx context.Context, uri string, opts Options) (Store, error) {
	if uri == "" {
		return nil, errors.New("store: empty storage URI (" + validURIs + ")")
	}
	m := schemeRE.FindStringSubmatch(uri)
	if m == nil {
		return openLocal(uri, opts.FollowSymlinks)
	}
	switch scheme := strings.ToLower(m[1]); scheme {
	case "file":
		p := uri[len(m[0]):]
		if !strings.HasPrefix(p, "/") {
			// file://host/path or file://relative: neither names a local directory.
			return nil, errors.New("store: file URI must be file:///absolute/path (" + validURIs + ")")
		}
		return openLocal(p, opts.FollowSymlinks)
	case "s3":
		bucket, prefix, err := parseS3(uri[len(m[0]):])
		if err != nil {
			return nil, err
		}
		return openS3(ctx, bucket, prefix, opts.S3)
	default:
		return nil, fmt.Errorf("store: unsupported URI scheme %q (%s)", scheme, validURIs)
	}
}

// parseS3 splits "bucket/prefix" (the part after s3://). The prefix is
// returned without a trailing slash; "" means the bucket root.
func parseS3(rest string) (bucket, prefix string, err error) {
	bucket, prefix, _ = strings.Cut(rest, "/")
	// "key:secret@bucket" (or "key:se/cret@bucket", which puts the ':' in the
	// bucket part): refuse without echoing any of it.
	if strings.ContainsAny(bucket, "@:") {
		return "", "", errors.New("store: s3 URI must not carry credentials (user:secret@) or a host:port; credentials come from the AWS credential chain, the endpoint from storage.s3.endpoint or AWS_ENDPOINT_URL_S3")
	}
	if !validBucket(bucket) {
		return "", "", fmt.Errorf("store: s3 URI: invalid bucket name %q (3-63 lowercase letters, digits, '.', '-')", bucket)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		if err := checkKey(prefix); err != nil {
			return "", "", fmt.Errorf("store: s3 URI prefix: %w", err)
		}
	}
	return bucket, prefix, nil
}

func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for _, c := range []byte(b) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// checkKey enforces keys that mean the same on every backend: relative,
// slash-separated, no empty, "." or ".." elements (which would escape or
// alias on disk), and no base name starting ".tmp-" (local temporaries,
// which List hides).
func checkKey(key string) error {
	switch {
	case key == "":
		return errors.New("empty key")
	case strings.HasPrefix(key, "/"), strings.HasSuffix(key, "/"):
		return fmt.Errorf("key %q: leading or trailing '/'", key)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("key %q: NUL byte", key)
	}
	for _, el := range strings.Split(key, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("key %q: empty, '.' or '..' element", key)
		}
	}
	if strings.HasPrefix(key[strings.LastIndexByte(key, '/')+1:], tmpPrefix) {
		return fmt.Errorf("key %q: base name starts with %q (reserved for temporaries)", key, tmpPrefix)
	}
	return nil
}

// checkPrefix accepts "" and any prefix of a valid key ("run/", "run/part-").
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	p := strings.TrimSuffix(prefix, "/")
	if p == "" || strings.HasPrefix(p, "/") || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("invalid list prefix %q", prefix)
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("invalid list prefix %q: empty, '.' or '..' element", prefix)
		}
	}
	return nil
}

// ReadAll reads the whole object at key.
func ReadAll(ctx context.Context, st Store, key string) ([]byte, error) {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	// One ReadAt of the whole size: a single request on S3.
	buf := make([]byte, obj.Size())
	n, err := obj.ReadAt(buf, 0)
	if n == len(buf) {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("read %s: %w", st.URI(key), err)
}

// Put writes data to key in one call; see Mode.
func Put(ctx context.Context, st Store, key string, data []byte, mode Mode) (Info, error) {
	w, err := st.Create(ctx, key, mode)
	if err != nil {
		return Info{}, err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return Info{}, err
	}
	return w.Commit()
}

// Reader reads obj sequentially from its start.
func Reader(obj Object) io.Reader {
	return io.NewSectionReader(obj, 0, obj.Size())
}

func openLocal(p string, follow bool) (Store, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("store: local root: %w", err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("store: local root %s is not a directory", abs)
	}
	return &localStore{root: abs, follow: follow}, nil
}
