package retrieval_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
)

// helperEnv selects the behaviour of the test binary when it runs as a
// plugin (see TestMain): the small Go helper programs of the plugin tests.
const helperEnv = "SABER_TEST_PLUGIN"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperPlugin(mode))
	}
	os.Exit(m.Run())
}

// helperPlugin speaks the protocol and misbehaves as mode says, on every
// request but the warm-up:
//
//	ok      scores = length of each candidate
//	env     scores = [OMP_NUM_THREADS, MKL_NUM_THREADS, SABER_IN_FLIGHT, the argument after --threads]
//	crash   writes "boom" to stderr and exits 3
//	hang    never answers
//	count   one score too few
//	junk    prints a line that is not JSON
//	flood   prints 1000 lines that are not JSON
//	wrongid answers with another id
//	error   answers {"error": ...}
//	slowstart  never answers the warm-up either
func helperPlugin(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<16), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID         string   `json:"id"`
			Query      string   `json:"query"`
			Candidates []string `json:"candidates"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			return 2
		}
		if req.ID == retrieval.WarmupID && mode != "slowstart" {
			out.Encode(map[string]any{"id": req.ID, "scores": []float64{}})
			continue
		}
		scores := make([]float64, len(req.Candidates))
		for i, c := range req.Candidates {
			scores[i] = float64(len(c))
		}
		switch mode {
		case "env":
			threads := ""
			for i, a := range os.Args {
				if a == "--threads" && i+1 < len(os.Args) {
					threads = os.Args[i+1]
				}
			}
			scores = nil
			for _, v := range []string{os.Getenv("OMP_NUM_THREADS"), os.Getenv("MKL_NUM_THREADS"), os.Getenv("SABER_IN_FLIGHT"), threads} {
				x, _ := strconv.ParseFloat(v, 64)
				scores = append(scores, x)
			}
		case "crash":
			fmt.Fprintln(os.Stderr, "boom: out of memory")
			return 3
		case "hang", "slowstart":
			time.Sleep(time.Hour)
		case "count":
			scores = scores[:len(scores)-1]
		case "junk":
			fmt.Println("loading model... 100%")
			continue
		case "flood":
			for i := 0; i < 1000; i++ {
				fmt.Println("progress", i)
			}
			continue
		case "wrongid":
			req.ID += "x"
		case "error":
			out.Encode(map[string]any{"id": req.ID, "error": "CUDA out of memory"})
			continue
		}
		out.Encode(map[string]any{"id": req.ID, "scores": scores})
	}
	return 0
}

func helperSpec(t *testing.T, mode string) retrievers.Spec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return retrievers.Spec{Kind: "plugin", Command: []string{exe, "--threads", "{threads}"}, Env: map[string]string{helperEnv: mode}, TimeoutSeconds: 1}
}

func TestPluginHelperOK(t *testing.T) {
	r := build(t, "helper", helperSpec(t, "ok"))
	for k := 0; k < 3; k++ { // one process serves every query
		got, err := r.Score(retrieval.WithQueryID(context.Background(), fmt.Sprintf("q%d", k)), "q", []string{"a", "bbb", ""})
		if err != nil || fmt.Sprint(got) != "[1 3 0]" {
			t.Fatalf("query %d: %v %v", k, got, err)
		}
	}
	if n := r.(retrieval.Counter).Counts()["plugin_requests"]; n != 4 {
		t.Errorf("%d requests, want the warm-up and 3", n)
	}
}

// TestPluginThreadCap: the CPU thread cap and the in-flight budget reach
// the plugin's environment and command line (App. C.5).
func TestPluginThreadCap(t *testing.T) {
	spec := helperSpec(t, "env")
	spec.Threads, spec.InFlight = 8, 4
	r := build(t, "helper", spec)
	got, err := r.Score(context.Background(), "q", []string{"a", "b", "c", "d"})
	if err != nil || fmt.Sprint(got) != "[8 8 4 8]" {
		t.Fatalf("got %v %v, want OMP=8 MKL=8 in_flight=4 --threads 8", got, err)
	}
}

func TestPluginFailures(t *testing.T) {
	for _, tt := range []struct {
		mode string
		want []string // all must appear in the error
	}{
		{"crash", []string{"plugin helper", "query q7", "exited before answering", "exit status 3", "boom: out of memory"}},
		{"hang", []string{"plugin helper", "query q7", "no answer within timeout_seconds (1s)", "killed"}},
		{"count", []string{"plugin helper", "query q7", "returned 2 scores for 3 candidates"}},
		{"junk", []string{"plugin helper", "query q7", "not a protocol answer", "loading model"}},
		{"flood", []string{"plugin helper", "query q7", "not a protocol answer", "progress 0"}},
		{"wrongid", []string{"plugin helper", "query q7", `answered with id "q7x", want "q7"`}},
		{"error", []string{"plugin helper", "query q7", "reports an error: CUDA out of memory"}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			r := build(t, "helper", helperSpec(t, tt.mode))
			start := time.Now()
			_, err := r.Score(retrieval.WithQueryID(context.Background(), "q7"), "q", []string{"a", "b", "c"})
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v: the wait is not bounded", d)
			}
			start = time.Now()
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Close took %v", d)
			}
		})
	}
}

// TestPluginHangIsKilled: after a timeout the plugin's process is gone.
func TestPluginHangIsKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	r := build(t, "helper", helperSpec(t, "hang"))
	pids := func() []string {
		out, _ := exec.Command("pgrep", "-f", "-P", strconv.Itoa(os.Getpid())).Output()
		return strings.Fields(string(out))
	}
	if len(pids()) == 0 {
		t.Skip("pgrep unavailable or the plugin is not a child")
	}
	if _, err := r.Score(context.Background(), "q", []string{"a"}); err == nil {
		t.Fatal("no error")
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(pids()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if p := pids(); len(p) > 0 {
		t.Errorf("plugin still running after the timeout: %v", p)
	}
	// Later calls fail at once with the same cause.
	if _, err := r.Score(context.Background(), "q", []string{"a"}); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("second call: %v", err)
	}
}

func TestPluginStartTimeout(t *testing.T) {
	spec := helperSpec(t, "slowstart")
	spec.StartTimeoutSeconds = 0.5
	start := time.Now()
	_, err := retrieval.Build(context.Background(), "helper", spec, retrieval.Options{})
	if err == nil || !strings.Contains(err.Error(), "warm-up") || !strings.Contains(err.Error(), "start_timeout_seconds") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestPluginNotFound(t *testing.T) {
	_, err := retrieval.Build(context.Background(), "p", retrievers.Spec{Kind: "plugin", Command: []string{"/nonexistent/saber-plugin"}}, retrieval.Options{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/saber-plugin") {
		t.Fatalf("err %v", err)
	}
}

// TestExamplePlugin runs the shipped Python plugin and checks its scores
// against Jaccard of \w+ token sets computed here.
func TestExamplePlugin(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	root, _ := filepath.Abs("../..")
	r, err := retrieval.Build(context.Background(), "overlap", retrievers.Spec{Kind: "plugin",
		Command: []string{py, "examples/plugins/overlap.py", "--threads", "{threads}"}}, retrieval.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	word := regexp.MustCompile(`\w+`)
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range word.FindAllString(strings.ToLower(s), -1) {
			m[w] = true
		}
		return m
	}
	q := "Let $p$ be a prime; show p divides 2^p - 2."
	ds := append(docs(20), "", "PRIME p divides", "\"quoted\"\nnew line \\ backslash")
	got, err := r.Score(retrieval.WithQueryID(context.Background(), "q1"), q, ds)
	if err != nil {
		t.Fatal(err)
	}
	qs := set(q)
	for i, d := range ds {
		ds := set(d)
		inter, union := 0, len(qs)
		for w := range ds {
			if qs[w] {
				inter++
			} else {
				union++
			}
		}
		want := 0.0
		if union > 0 {
			want = float64(inter) / float64(union)
		}
		if !near(got[i], want, 1e-15) {
			t.Errorf("doc %d: %v, want %v", i, got[i], want)
		}
	}
}
