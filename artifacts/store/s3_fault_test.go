package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

// exitCode is what jobs/stage.ExitCode reads from a store error (the
// ExitCoder interface); 0 when the error has no kind.
func exitCode(err error) int {
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return 0
}

// fastRetries keep fault tests short: 3 attempts, 0.3 s stall timeout,
// waits under 0.1 s.
func fastRetries(o store.S3Options) store.S3Options {
	o.MaxAttempts, o.TimeoutSeconds, o.MaxBackoffSeconds = 3, 0.3, 0.1
	return o
}

// silentServer accepts connections and never answers, holding them open.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// A server that accepts and never answers fails every call, within about
// attempts × timeout, as transient (exit 75), and each attempt and retry
// is counted and each retry logged. Without a stall timeout every call here
// would block until the watchdog context ends.
func TestS3StalledEndpointFailsTransient(t *testing.T) {
	o := fastRetries(fakeS3(t))
	o.Endpoint = silentServer(t)
	st, err := store.Open(context.Background(), "s3://bucket/p", store.Options{S3: o})
	if err != nil {
		t.Fatal(err)
	}
	// attempts × timeout = 0.9 s, plus at most 0.2 s of backoff.
	const bound = 3 * time.Second
	calls := map[string]func(ctx context.Context) error{
		"Stat": func(ctx context.Context) error { _, err := st.Stat(ctx, "k"); return err },
		"List": func(ctx context.Context) error { _, err := st.List(ctx, ""); return err },
		"Put": func(ctx context.Context) error {
			_, err := store.Put(ctx, st, "k", []byte("data"), store.Once)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			var stats store.Stats
			watchdog, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ctx := store.WithStats(zerolog.New(&logs).WithContext(watchdog), &stats)
			start := time.Now()
			err := call(ctx)
			took := time.Since(start)
			t.Logf("%s after %s: %v", name, took.Round(time.Millisecond), err)
			if err == nil {
				t.Fatal("no error from a silent server")
			}
			if took > bound {
				t.Errorf("took %s, want under %s", took, bound)
			}
			if store.KindOf(err) != store.Transient || exitCode(err) != 75 {
				t.Errorf("kind %v, exit %d; want transient, 75: %v", store.KindOf(err), exitCode(err), err)
			}
			if !strings.Contains(err.Error(), "storage.s3.timeout_seconds") {
				t.Errorf("error does not name the setting: %v", err)
			}
			if r, n, to := stats.Requests.Load(), stats.Retries.Load(), stats.Timeouts.Load(); r != 3 || n != 2 || to != 2 {
				t.Errorf("requests %d, retries %d, timeouts %d; want 3, 2, 2", r, n, to)
			}
			if got := strings.Count(logs.String(), `"s3: retrying"`); got != 2 {
				t.Errorf("%d retry log lines, want 2:\n%s", got, logs.String())
			}
		})
	}
}

// stallingS3 serves a fake S3, except that the first `stalls` ranged GETs
// send their headers and half the body, then go silent (or, with cut,
// drop the connection).
func stallingS3(t *testing.T, stalls int64, cut bool) (store.S3Options, *atomic.Int64) {
	t.Helper()
	o := fakeS3(t)
	fake := strings.TrimPrefix(o.Endpoint, "http://")
	var n atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Scheme, r.URL.Host, r.RequestURI = "http", fake, ""
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(res.Body)
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" && n.Add(1) <= stalls {
			w.Write(body.Bytes()[:body.Len()/2])
			w.(http.Flusher).Flush()
			if cut {
				panic(http.ErrAbortHandler) // closes the connection mid-body
			}
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Write(body.Bytes())
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	o.Endpoint = srv.URL
	return fastRetries(o), &n
}

// A body that stalls halfway is fetched again (the SDK retries requests,
// not bodies read after the call); one that always stalls fails transient.
func TestS3StalledBodyIsRetried(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		stalls  int64
		cut     bool
		wantErr bool
	}{{1, false, false}, {2, false, false}, {100, false, true}, {1, true, false}, {100, true, true}} {
		t.Run(fmt.Sprint(c.stalls, c.cut), func(t *testing.T) {
			o, _ := stallingS3(t, c.stalls, c.cut)
			st := newFakeStore(t, o)
			data := []byte(strings.Repeat("0123456789", 1000))
			if _, err := store.Put(ctx, st, "obj", data, store.Replace); err != nil {
				t.Fatal(err)
			}
			var stats store.Stats
			start := time.Now()
			got, err := store.ReadAll(store.WithStats(ctx, &stats), st, "obj")
			t.Logf("after %s: retries %d, timeouts %d, err %v", time.Since(start).Round(time.Millisecond),
				stats.Retries.Load(), stats.Timeouts.Load(), err)
			if c.wantErr {
				if store.KindOf(err) != store.Transient || time.Since(start) > 3*time.Second {
					t.Errorf("always stalling: %v after %s, want transient within 3 s", err, time.Since(start))
				}
				return
			}
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read after %d stalls: %v", c.stalls, err)
			}
			if n, want := stats.Timeouts.Load(), map[bool]int64{false: c.stalls}[c.cut]; n != want {
				t.Errorf("timeouts counted %d, want %d", n, want)
			}
			if n := stats.Retries.Load(); n != c.stalls {
				t.Errorf("retries counted %d, want %d", n, c.stalls)
			}
		})
	}
}

// statusS3 answers every request with status and, when code is set, an S3
// XML error body; it counts the requests.
func statusS3(t *testing.T, status int, code string) (store.S3Options, *atomic.Int64) {
	t.Helper()
	o := fakeS3(t)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if code == "" || r.Method == http.MethodHead {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>test</Message><RequestId>r1</RequestId></Error>`, code)
	}))
	t.Cleanup(srv.Close)
	o.Endpoint = srv.URL
	return fastRetries(o), &n
}

// Each S3 failure gets its kind, in one place: server errors and
// throttling after every retry are transient (75); refused credentials,
// a missing bucket and an unsupported request are configuration (2), and
// are not retried.
func TestS3ErrorKinds(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		status   int
		code     string
		want     store.Kind
		attempts int64
	}{
		{503, "SlowDown", store.Transient, 3},
		{503, "", store.Transient, 3},
		{500, "InternalError", store.Transient, 3},
		{502, "", store.Transient, 3},
		{429, "TooManyRequests", store.Transient, 3},
		{429, "", store.Transient, 3},
		{403, "AccessDenied", store.Config, 1},
		{403, "SignatureDoesNotMatch", store.Config, 1},
		{403, "InvalidAccessKeyId", store.Config, 1},
		{403, "", store.Config, 1},
		{401, "", store.Config, 1},
		{404, "NoSuchBucket", store.Config, 1},
		{404, "XAdminUserNotFound", store.Config, 1}, // versitygw: unknown access key
		{301, "PermanentRedirect", store.Config, 1},
		{501, "NotImplemented", store.Config, 1},
	} {
		t.Run(fmt.Sprintf("%d%s", c.status, c.code), func(t *testing.T) {
			o, n := statusS3(t, c.status, c.code)
			st, err := store.Open(ctx, "s3://bucket/p", store.Options{S3: o})
			if err != nil {
				t.Fatal(err)
			}
			calls := map[string]func() error{
				"Put":  func() error { _, err := store.Put(ctx, st, "k", []byte("x"), store.Once); return err },
				"List": func() error { _, err := st.List(ctx, ""); return err },
			}
			if c.code == "" || c.status != 404 && c.status != 301 {
				// HEAD answers have no body: only the status speaks.
				calls["Stat"] = func() error { _, err := st.Stat(ctx, "k"); return err }
			}
			for name, call := range calls {
				n.Store(0)
				err := call()
				if got := store.KindOf(err); got != c.want {
					t.Errorf("%s: kind %v, want %v: %v", name, got, c.want, err)
				}
				if want := map[store.Kind]int{store.Transient: 75, store.Config: 2}[c.want]; exitCode(err) != want {
					t.Errorf("%s: exit %d, want %d", name, exitCode(err), want)
				}
				if got := n.Load(); got != c.attempts {
					t.Errorf("%s: %d requests, want %d", name, got, c.attempts)
				}
				if errors.Is(err, store.ErrNotExist) {
					t.Errorf("%s: reported as not-exist: %v", name, err)
				}
			}
		})
	}
}

// Missing credentials are a configuration error (2), found before any
// request is sent, and the message says which variables to set.
func TestS3NoCredentials(t *testing.T) {
	o, n := statusS3(t, 200, "")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	st, err := store.Open(context.Background(), "s3://bucket/p", store.Options{S3: o})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Stat(context.Background(), "k")
	if store.KindOf(err) != store.Config || exitCode(err) != 2 || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("no credentials: kind %v, exit %d: %v", store.KindOf(err), exitCode(err), err)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests sent without credentials", n.Load())
	}
}

// A missing object and a lost write-once race keep their meaning: no kind.
func TestS3NotExistAndExistHaveNoKind(t *testing.T) {
	ctx := context.Background()
	st := newFakeStore(t, fakeS3(t))
	_, err := st.Stat(ctx, "missing")
	if !errors.Is(err, store.ErrNotExist) || store.KindOf(err) != 0 {
		t.Errorf("missing: %v (kind %v)", err, store.KindOf(err))
	}
	storetest.RoundTrip(t, st, "once", 10, store.Once)
	_, err = store.Put(ctx, st, "once", []byte("x"), store.Once)
	if !errors.Is(err, store.ErrExist) || store.KindOf(err) != 0 {
		t.Errorf("exists: %v (kind %v)", err, store.KindOf(err))
	}
}

// The S3 spool is never visible in $TMPDIR, so a killed writer leaves
// nothing to clean up.
func TestS3SpoolLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	st := newFakeStore(t, fakeS3(t))
	w, err := st.Create(context.Background(), "k", store.Replace)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("spooled"))
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("spool visible in TMPDIR while writing: %v", ents)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, err := store.ReadAll(context.Background(), st, "k"); err != nil || string(got) != "spooled" {
		t.Errorf("read back %q, %v", got, err)
	}
}

// tricklingS3 serves a fake S3, except that ranged GETs send their body a
// byte every gap, never silent long enough for the stall timeout.
func tricklingS3(t *testing.T, gap time.Duration) store.S3Options {
	t.Helper()
	o := fakeS3(t)
	fake := strings.TrimPrefix(o.Endpoint, "http://")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Scheme, r.URL.Host, r.RequestURI = "http", fake, ""
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(res.Body)
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		if r.Method != http.MethodGet || r.Header.Get("Range") == "" {
			w.Write(body.Bytes())
			return
		}
		for _, b := range body.Bytes() {
			if _, err := w.Write([]byte{b}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
		}
	}))
	t.Cleanup(srv.Close)
	o.Endpoint = srv.URL
	return fastRetries(o)
}

// A body that trickles (a byte every 50 ms, each well within the 0.3 s
// stall timeout) is cut once it has run a timeout below
// min_bytes_per_second, retried, and fails transient (exit 75) within
// about attempts × timeout, where it used to take the whole body's
// trickle (here 10,000 bytes: over 8 minutes). A body that keeps the rate
// is read whole.
func TestS3TricklingBodyIsCutAndRetried(t *testing.T) {
	ctx := context.Background()
	o := tricklingS3(t, 50*time.Millisecond)
	o.MinBytesPerSecond = 1000
	st := newFakeStore(t, o)
	data := []byte(strings.Repeat("0123456789", 1000))
	if _, err := store.Put(ctx, st, "obj", data, store.Replace); err != nil {
		t.Fatal(err)
	}
	var stats store.Stats
	var logs bytes.Buffer
	watchdog, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err := store.ReadAll(store.WithStats(zerolog.New(&logs).WithContext(watchdog), &stats), st, "obj")
	took := time.Since(start)
	t.Logf("after %s: retries %d, timeouts %d, err %v", took.Round(time.Millisecond), stats.Retries.Load(), stats.Timeouts.Load(), err)
	if store.KindOf(err) != store.Transient || exitCode(err) != 75 || !strings.Contains(err.Error(), "min_bytes_per_second") {
		t.Fatalf("trickling body: %v, want a transient failure naming min_bytes_per_second", err)
	}
	if took > 3*time.Second {
		t.Errorf("took %s, want about attempts × timeout (0.9 s)", took)
	}
	if n := stats.Retries.Load(); n != 2 || stats.Timeouts.Load() != 2 || strings.Count(logs.String(), `"s3: retrying"`) != 2 {
		t.Errorf("retries %d, timeouts %d, want 2 each, logged:\n%s", n, stats.Timeouts.Load(), logs.String())
	}

	// The same trickle of a small object ends before the rate is judged.
	small := []byte("0123")
	if _, err := store.Put(ctx, st, "small", small, store.Replace); err != nil {
		t.Fatal(err)
	}
	if got, err := store.ReadAll(ctx, st, "small"); err != nil || !bytes.Equal(got, small) {
		t.Errorf("small trickled object: %q, %v", got, err)
	}
}

// With a custom endpoint and no credentials, the credential chain does
// not ask the EC2 instance-metadata service (which would send packets off
// the node, and wait seconds): here its address is a loopback server that
// counts what reaches it. storage.s3.use_instance_metadata: true asks it
// again.
func TestS3CustomEndpointSkipsInstanceMetadata(t *testing.T) {
	o, n := statusS3(t, 200, "")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_EC2_METADATA_DISABLED"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	var asked atomic.Int64
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(imds.Close)
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
	for _, use := range []bool{false, true} {
		asked.Store(0)
		o.UseInstanceMetadata = use
		st, err := store.Open(context.Background(), "s3://bucket/p", store.Options{S3: o})
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Stat(context.Background(), "k")
		if !use && (store.KindOf(err) != store.Config || exitCode(err) != 2) {
			t.Errorf("no credentials: kind %v, exit %d: %v", store.KindOf(err), exitCode(err), err)
		}
		if got := asked.Load(); use != (got > 0) {
			t.Errorf("use_instance_metadata %v: %d requests to the instance-metadata address", use, got)
		}
	}
	if n.Load() != 0 {
		t.Errorf("%d requests sent to S3 without credentials", n.Load())
	}
}
