package stage

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

func s3Env(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIASTAGETEST0000001")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "stageTestSecret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// runS3Shard runs shard 0/1 of the test stage as its binary would, on
// s3://bucket/p at endpoint, with fast retries: 3 attempts, 0.3 s stall
// timeout, waits under 0.1 s.
func runS3Shard(t *testing.T, endpoint string) (code int, stderr string) {
	t.Helper()
	s3Env(t)
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`run: r
root: s3://bucket/p
storage:
  s3:
    endpoint: %s
    max_attempts: 3
    timeout_seconds: 0.3
    max_backoff_seconds: 0.1
toy: {shards: 1}
`, endpoint)), 0o644)
	var runs atomic.Int64
	st, _ := testStage(&runs, nil)
	var out, errOut bytes.Buffer
	code = Command(context.Background(), Binary{Stage: st}, []string{"--config", cfg, "--shard", "0/1"}, &out, &errOut)
	return code, errOut.String()
}

// The bars of issue 19 for S3: a stalled endpoint exits 75 within about
// attempts × timeout, never hangs; 503 on every request exits 75; a
// refused secret or a missing bucket exits 2. (Before: a hang, 1, 1, 1.)
func TestS3FailuresExitCodes(t *testing.T) {
	silent := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		conns := make(chan net.Conn, 100)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				conns <- c // held open, never answered
			}
		}()
		t.Cleanup(func() {
			l.Close()
			for len(conns) > 0 {
				(<-conns).Close()
			}
		})
		return "http://" + l.Addr().String()
	}
	answering := func(status int, code string) func(t *testing.T) string {
		return func(t *testing.T) string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead {
					// No body: a 404 reads as a missing done marker, and
					// the shard goes on to write.
					w.WriteHeader(status)
					return
				}
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(status)
				fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>m</Message></Error>`, code)
			}))
			t.Cleanup(srv.Close)
			return srv.URL
		}
	}
	for _, c := range []struct {
		name   string
		server func(t *testing.T) string
		want   int
		msg    string
	}{
		{"stalled", silent, ExitTempFail, "storage.s3.timeout_seconds"},
		{"503", answering(503, "SlowDown"), ExitTempFail, "storage.s3.max_attempts"},
		{"wrong secret", answering(403, "SignatureDoesNotMatch"), ExitBadInput, "AWS_SECRET_ACCESS_KEY"},
		{"no such bucket", answering(404, "NoSuchBucket"), ExitBadInput, "bucket does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			code, stderr := runS3Shard(t, c.server(t))
			took := time.Since(start)
			t.Logf("exit %d after %s: %s", code, took.Round(time.Millisecond), stderr)
			if code != c.want {
				t.Errorf("exit %d, want %d", code, c.want)
			}
			if !strings.Contains(stderr, c.msg) {
				t.Errorf("stderr does not mention %q", c.msg)
			}
			if took > 5*time.Second {
				t.Errorf("took %s: 3 attempts × 0.3 s plus backoff should end within a few seconds", took)
			}
		})
	}
}

// Retries of a shard's S3 requests are counted in its manifest.
func TestS3RetriesInManifest(t *testing.T) {
	s3Env(t)
	ctx := context.Background()
	fake := gofakes3.New(s3mem.New()).Server()
	var puts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first two uploads of data parts meet a throttling server.
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, ".parquet") && puts.Add(1) <= 2 {
			w.WriteHeader(503)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>m</Message></Error>`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	opts := store.Options{S3: store.S3Options{Endpoint: srv.URL, MaxAttempts: 4, MaxBackoffSeconds: 0.05}}
	if err := store.EnsureBucket(ctx, "s3://bucket", opts); err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, "s3://bucket/p", opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "")
	var runs atomic.Int64
	st, step := testStage(&runs, nil)
	var logs bytes.Buffer
	res, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: 0, Count: 1}, root, zerolog.New(&logs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats["s3_retries"] != 2 || m.Stats["s3_requests"] < 4 || m.Stats["s3_timeouts"] != 0 {
		t.Errorf("manifest stats %v, want s3_retries 2, s3_requests ≥ 4", m.Stats)
	}
	if res.Manifest.Stats["s3_retries"] != 2 {
		t.Errorf("result stats %v", res.Manifest.Stats)
	}
	// Each retry is logged with the shard's fields.
	if n := strings.Count(logs.String(), `"shard":"0/1","op":"PutObject","attempt"`); n != 2 {
		t.Errorf("%d retry lines, want 2:\n%s", n, logs.String())
	}
}
