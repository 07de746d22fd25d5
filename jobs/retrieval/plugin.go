package retrieval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/parallel"
)

// A plugin is any program that scores candidates over this JSONL protocol
// on its stdin and stdout, so SentenceTransformers, pya0/Approach Zero or a
// user's own code plug in without Go changes
// (examples/plugins/overlap.py is a complete one):
//
//	saber → plugin, one line:  {"id": "q123", "query": "…", "candidates": ["…", "…"]}
//	plugin → saber, one line:  {"id": "q123", "scores": [0.7, 0.1]}
//	                       or: {"id": "q123", "error": "why"}
//
//   - Lines are UTF-8 JSON objects ended by "\n" (JSON escapes the texts'
//     own line breaks). Requests come one at a time: the next is sent after
//     the answer to the previous one. The id is the query's id (any
//     string); the answer must repeat it.
//   - scores has one finite number per candidate, in their order; higher is
//     more relevant. An "error" answer fails the query with that message.
//   - The program is started once per evaluate shard and serves all of the
//     shard's queries. Right after start saber sends a warm-up request,
//     {"id": "_warmup", "query": "", "candidates": []}, to be answered
//     with "scores": []; loading a model before answering it keeps the
//     loading out of the timed region. It must come within
//     start_timeout_seconds (default 900).
//   - Every other answer must come within timeout_seconds (default 600);
//     otherwise saber kills the program (its whole process group) and the
//     shard fails naming the plugin and the query. So does a crash, a line
//     that is not such an answer, or a wrong number of scores.
//   - stdout carries the protocol only; write logs to stderr (saber logs
//     each stderr line at debug level and quotes the last ones in errors).
//   - At the end saber closes stdin: exit then (within 5 s, or be killed).
//   - The texts are sent formatted: the spec's instruction and templates
//     are applied before (usually there are none for a plugin).
//   - The environment is saber's, plus the spec's env, plus the CPU thread
//     cap (App. C.5): every variable of ThreadVars = threads (default 16),
//     SABER_THREADS, SABER_IN_FLIGHT (documents in flight, default 16),
//     SABER_RETRIEVER (the retriever's name) and PYTHONUNBUFFERED=1. In the
//     command, "{threads}" and "{in_flight}" are replaced by those values,
//     e.g. command: [python3, plugin.py, --threads, "{threads}"].
//   - It runs in the config file's directory.

// ThreadVars are the environment variables set to a plugin's threads: the
// thread pools of OpenMP, MKL, OpenBLAS, Accelerate, numexpr, Rayon (and
// so HF tokenizers) and Go.
var ThreadVars = []string{
	"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
	"NUMEXPR_NUM_THREADS", "NUMEXPR_MAX_THREADS", "RAYON_NUM_THREADS", "GOMAXPROCS",
}

// WarmupID is the id of the warm-up request.
const WarmupID = "_warmup"

type pluginRequest struct {
	ID         string   `json:"id"`
	Query      string   `json:"query"`
	Candidates []string `json:"candidates"`
}

type pluginResponse struct {
	ID     *string    `json:"id"`
	Scores []*float64 `json:"scores"`
	Error  *string    `json:"error"`
}

type plugin struct {
	name    string
	argv    []string
	f       retrievers.Formatter
	timeout time.Duration
	log     zerolog.Logger

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // stdout lines; closed at EOF
	quit   chan struct{} // closed when no more lines will be read
	once   sync.Once
	exited chan struct{}
	tail   *tailBuffer

	mu       sync.Mutex // one request at a time
	dead     error      // set once the process is unusable
	seq      int
	requests int64
	closed   bool
}

func startPlugin(ctx context.Context, name string, spec retrievers.Spec, f retrievers.Formatter, opt Options) (*plugin, error) {
	threads := strconv.Itoa(spec.Threads)
	inFlight := strconv.Itoa(spec.InFlight)
	argv := make([]string, len(spec.Command))
	rep := strings.NewReplacer(retrievers.PlaceholderThreads, threads, retrievers.PlaceholderInFlight, inFlight)
	for i, a := range spec.Command {
		argv[i] = rep.Replace(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opt.Dir
	env := os.Environ()
	for _, v := range ThreadVars {
		env = append(env, v+"="+threads)
	}
	env = append(env, "SABER_THREADS="+threads, "SABER_IN_FLIGHT="+inFlight, "SABER_RETRIEVER="+name, "PYTHONUNBUFFERED=1")
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		env = append(env, k+"="+spec.Env[k])
	}
	cmd.Env = env
	setProcessGroup(cmd)
	dieWithParent(cmd)
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	p := &plugin{
		name: name, argv: argv, f: f,
		timeout: time.Duration(spec.TimeoutSeconds * float64(time.Second)),
		log:     zerolog.Ctx(ctx).With().Str("plugin", name).Logger(),
		cmd:     cmd, stdin: stdin,
		lines:  make(chan []byte, 1),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
		tail:   &tailBuffer{max: pluginStderrTail},
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("plugin %s: starting %q: %v: %w", name, argv[0], err, retrievers.ErrBadSpec)
	}
	p.log.Info().Strs("command", argv).Int("pid", cmd.Process.Pid).Str("threads", threads).Msg("plugin started")
	var readers sync.WaitGroup
	readers.Add(2)
	parallel.Go(func() { // stdout: protocol lines
		defer readers.Done()
		defer close(p.lines)
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case p.lines <- line:
				case <-p.quit: // nobody will read it: stop, so Wait can run
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
	parallel.Go(func() { // stderr: logs
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		for sc.Scan() {
			p.tail.add(sc.Text())
			p.log.Debug().Str("stderr", sc.Text()).Msg("plugin")
		}
	})
	parallel.Go(func() {
		readers.Wait() // Wait must not run before the pipes are drained
		_ = cmd.Wait()
		close(p.exited)
	})

	// Warm-up: start-up (model loading) stays outside the timed region.
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, time.Duration(spec.StartTimeoutSeconds*float64(time.Second)))
	defer cancel()
	if _, err := p.call(wctx, WarmupID, "", nil, true); err != nil {
		p.kill()
		return nil, err
	}
	p.log.Info().Int64("startup_ms", time.Since(start).Milliseconds()).Msg("plugin ready")
	return p, nil
}

func (p *plugin) Name() string { return p.name }

// Counts returns the plugin's statistics for the manifest.
func (p *plugin) Counts() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return map[string]int64{"plugin_requests": p.requests}
}

func (p *plugin) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := QueryID(ctx)
	if id == "" {
		p.seq++
		id = "req-" + strconv.Itoa(p.seq)
	}
	fd := make([]string, len(docs))
	for i, d := range docs {
		fd[i] = p.f.Doc(d)
	}
	wctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.call(wctx, id, p.f.Query(query), fd, false)
}

// call sends one request and reads its answer under ctx's deadline; the
// caller holds mu (or is the constructor).
func (p *plugin) call(ctx context.Context, id, query string, docs []string, warmup bool) ([]float64, error) {
	what := fmt.Sprintf("plugin %s (%s): query %s", p.name, p.argv[0], id)
	if warmup {
		what = fmt.Sprintf("plugin %s (%s): warm-up", p.name, p.argv[0])
	}
	if p.dead != nil {
		return nil, fmt.Errorf("%s: %w", what, p.dead)
	}
	if docs == nil {
		docs = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // ends the line with "\n"
	enc.SetEscapeHTML(false)
	if err := enc.Encode(pluginRequest{ID: id, Query: query, Candidates: docs}); err != nil {
		return nil, fmt.Errorf("%s: encoding the request: %w", what, err)
	}
	p.requests++
	wrote := make(chan error, 1)
	parallel.Go(func() { // a plugin that does not read must not block us past the deadline
		_, err := p.stdin.Write(buf.Bytes())
		wrote <- err
	})
	var line []byte
	for line == nil {
		select {
		case err := <-wrote:
			if err != nil {
				// Broken pipe: the process is gone; its exit says more.
				return nil, p.fail(what, p.exitError("it stopped reading its input"))
			}
			wrote = nil
		case l, ok := <-p.lines:
			if !ok {
				return nil, p.fail(what, p.exitError("it exited before answering"))
			}
			line = l
		case <-ctx.Done():
			p.kill()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				limit := fmt.Sprintf("timeout_seconds (%s)", p.timeout)
				if warmup {
					limit = "start_timeout_seconds"
				}
				return nil, p.fail(what, fmt.Errorf("no answer within %s; the plugin was killed%s", limit, p.stderrTail()))
			}
			return nil, p.fail(what, fmt.Errorf("interrupted; the plugin was killed: %w", ctx.Err()))
		}
	}
	var resp pluginResponse
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil {
		p.kill()
		return nil, p.fail(what, fmt.Errorf("answered a line that is not a protocol answer (%v): %q; stdout must carry only answer lines", err, preview(string(line), pluginPreview)))
	}
	if resp.ID == nil || *resp.ID != id {
		p.kill()
		got := "none"
		if resp.ID != nil {
			got = strconv.Quote(*resp.ID)
		}
		return nil, p.fail(what, fmt.Errorf("answered with id %s, want %q", got, id))
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: the plugin reports an error: %s", what, *resp.Error)
	}
	if len(resp.Scores) != len(docs) {
		return nil, fmt.Errorf("%s: returned %d scores for %d candidates", what, len(resp.Scores), len(docs))
	}
	out := make([]float64, len(docs))
	for i, s := range resp.Scores {
		if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
			return nil, fmt.Errorf("%s: score %d is not a finite number", what, i)
		}
		out[i] = *s
	}
	return out, nil
}

// fail marks the plugin unusable and returns the error for this call.
func (p *plugin) fail(what string, err error) error {
	p.dead = err
	return fmt.Errorf("%s: %w", what, err)
}

// exitError waits briefly for the process to end and describes how it did.
func (p *plugin) exitError(why string) error {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		p.kill()
		<-p.exited
	}
	state := "unknown status"
	if ps := p.cmd.ProcessState; ps != nil {
		state = ps.String()
	}
	return fmt.Errorf("%s (%s)%s", why, state, p.stderrTail())
}

func (p *plugin) stderrTail() string {
	if t := p.tail.String(); t != "" {
		return "; its stderr ends: " + strconv.Quote(t)
	}
	return ""
}

// kill ends the process group now.
func (p *plugin) kill() {
	p.stopReading()
	killProcessGroup(p.cmd)
}

func (p *plugin) stopReading() { p.once.Do(func() { close(p.quit) }) }

// Close closes the plugin's stdin, waits up to 5 s for it to exit, then
// kills it. A non-zero exit after a successful run is logged, not returned.
func (p *plugin) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	_ = p.stdin.Close()
	p.stopReading()
	select {
	case <-p.exited:
	case <-time.After(pluginCloseGrace):
		p.log.Warn().Msg("plugin did not exit within 5 s of the end of its input; killing it")
		p.kill()
		<-p.exited
	}
	if ps := p.cmd.ProcessState; ps != nil && !ps.Success() && p.dead == nil {
		p.log.Warn().Str("status", ps.String()).Msg("plugin exited with an error after its input ended")
	}
	if p.dead == nil {
		p.dead = errors.New("closed")
	}
	return nil
}

const (
	pluginCloseGrace = 5 * time.Second
	pluginStderrTail = 2048
	pluginPreview    = 200
)

// tailBuffer keeps the last max bytes of the lines added.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, line...)
	t.b = append(t.b, '\n')
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
