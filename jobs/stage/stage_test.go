package stage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/shard"
)

// countingStore counts every call that reads or writes an object, and the
// data objects (outside _done/) opened.
type countingStore struct {
	store.Store
	opens, dataOpens, lists, creates, deletes atomic.Int64
}

func (c *countingStore) Open(ctx context.Context, key string) (store.Object, error) {
	c.opens.Add(1)
	if !strings.Contains(key, "/_done/") {
		c.dataOpens.Add(1)
	}
	return c.Store.Open(ctx, key)
}

func (c *countingStore) List(ctx context.Context, prefix string) ([]store.Info, error) {
	c.lists.Add(1)
	return c.Store.List(ctx, prefix)
}

func (c *countingStore) Create(ctx context.Context, key string, mode store.Mode) (store.Writer, error) {
	c.creates.Add(1)
	return c.Store.Create(ctx, key, mode)
}

func (c *countingStore) Delete(ctx context.Context, key string) error {
	c.deletes.Add(1)
	return c.Store.Delete(ctx, key)
}

func (c *countingStore) reset() {
	c.opens.Store(0)
	c.dataOpens.Store(0)
	c.lists.Store(0)
	c.creates.Store(0)
	c.deletes.Store(0)
}

// toyConfig is the test stage's section.
type toyConfig struct {
	Shards int    `yaml:"shards" json:"shards" hash:"-"`
	Label  string `yaml:"label" json:"label"`
}

func (c *toyConfig) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 2
	}
}
func (c *toyConfig) Validate(*config.Config, func(string, ...any)) {}

var toySection = config.SectionOf[toyConfig]{Name: "toy"}

// testStage writes `problems` and `rejects` (one row each) per shard, and
// derives each problem's subject from the run seed.
func testStage(runs *atomic.Int64, fail error) (Stage, Step) {
	step := Step{
		Name: "map", Outputs: []string{"problems", "rejects"}, Shards: func(c *config.Config) int { return toySection.Of(c).Shards },
		Run: func(ctx context.Context, env *Env) error {
			runs.Add(1)
			if fail != nil {
				return fail
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			id := fmt.Sprint(env.Shard.Index)
			p := dataset.Problem{ID: id, Subject: fmt.Sprint(env.Seed(id)), Origin: toySection.Of(env.Config).Label}
			if err := WriteOutput(ctx, env, dataset.Problems, []dataset.Problem{p}); err != nil {
				return err
			}
			if err := WriteOutput(ctx, env, dataset.Rejects, []dataset.Reject{{ID: id, Reason: dataset.ReasonEmpty}}); err != nil {
				return err
			}
			env.Count("rows", 1)
			return nil
		},
	}
	return Stage{Name: "test", Section: toySection, Uses: func(*config.Config) []string { return []string{"seed"} }, Steps: []Step{step}}, step
}

func testConfig(t *testing.T, extra string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte("run: r\nroot: mem\n"+extra), toySection)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestDoneShardIsSkippedReadingOnlyManifests(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := &countingStore{Store: store.NewMem()}
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	spec := shard.Spec{Index: 1, Count: 2}
	res, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || res.Skipped || res.Manifest == nil || res.Manifest.Rows != 1 || res.Manifest.Stats["rows"] != 1 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	m := res.Manifest
	values := stg.ConfigValues(cfg)
	if m.ConfigHash != config.HashValues(values) || m.Config["seed"] != "0" || m.Config["toy.label"] != `""` || m.CodeVersion == "" || len(m.Outputs) != 2 {
		t.Errorf("manifest %+v", m)
	}
	if _, op := m.Config["toy.shards"]; op {
		t.Error("an operational field (hash:\"-\") is in the manifest's config")
	}
	if m.Hash != ManifestHash(m) || m.InputsHash != InputsHash(nil) {
		t.Errorf("hashes %s %s", m.Hash, m.InputsHash)
	}
	// Every output dataset has its own marker, each a full copy.
	for _, ds := range []string{"problems", "rejects"} {
		o, err := layout.ReadDone(ctx, st, layout.DoneKey("r", ds, spec))
		info, _ := dataset.Lookup(ds)
		if err != nil || o.Dataset != ds || o.Format != info.Version || o.Rows != 1 || len(o.Outputs) != 2 || o.Hash != m.Hash {
			t.Errorf("%s marker: %+v, %v", ds, o, err)
		}
	}
	st.reset()
	res, err = RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || !res.Skipped || runs.Load() != 1 {
		t.Fatalf("second run: %+v, %v, runs %d", res, err, runs.Load())
	}
	if st.dataOpens.Load()+st.creates.Load()+st.deletes.Load() != 0 {
		t.Errorf("a done shard read data or wrote: %d data opens, %d creates, %d deletes", st.dataOpens.Load(), st.creates.Load(), st.deletes.Load())
	}
	// --force redoes it, removing the markers first and writing them again.
	res, err = RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{Force: true})
	if err != nil || res.Skipped || runs.Load() != 2 || st.deletes.Load() != 2 {
		t.Fatalf("force: %+v, %v, runs %d, deletes %d", res, err, runs.Load(), st.deletes.Load())
	}
	for _, k := range DoneKeys("r", step, spec) {
		if done, _ := layout.Done(ctx, st, k); !done {
			t.Errorf("no marker %s after --force", k)
		}
	}
}

// TestStaleDoneShardIsRefused: a done shard whose own config keys changed
// is refused with the keys and values; a key it does not read, or an
// operational one, changes nothing.
func TestStaleDoneShardIsRefused(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	spec := shard.Spec{Index: 0, Count: 2}
	if _, err := RunShard(ctx, testConfig(t, "toy: {label: a}\n"), stg, step, spec, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, same := range []string{"toy: {label: a}\nlog: {level: debug}\n", "toy: {label: a}\nbenchmark: {k: 7}\n", "toy: {label: a, shards: 2}\n"} {
		res, err := RunShard(ctx, testConfig(t, same), stg, step, spec, st, zerolog.Nop(), Options{})
		if err != nil || !res.Skipped {
			t.Errorf("%q: %+v, %v", same, res, err)
		}
	}
	for extra, want := range map[string]string{
		"toy: {label: b}\n":          `config toy.label: "a" → "b"`,
		"toy: {label: a}\nseed: 3\n": "config seed: 0 → 3",
	} {
		_, err := RunShard(ctx, testConfig(t, extra), stg, step, spec, st, zerolog.Nop(), Options{})
		var se *StaleError
		if !errors.As(err, &se) || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "shard 0/2 is stale") {
			t.Errorf("%q: %v; want a stale error with %q", extra, err, want)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("%d runs, want 1", runs.Load())
	}
}

// TestInterruptedFinishIsRedone: a shard with some of its markers (a
// finish cut short) is not done; it runs again and writes them all.
func TestInterruptedFinishIsRedone(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	spec := shard.Spec{Index: 0, Count: 2}
	if _, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, layout.DoneKey("r", "rejects", spec)); err != nil {
		t.Fatal(err)
	}
	res, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || res.Skipped || runs.Load() != 2 {
		t.Fatalf("rerun: %+v, %v, runs %d", res, err, runs.Load())
	}
	if done, _ := layout.Done(ctx, st, layout.DoneKey("r", "rejects", spec)); !done {
		t.Error("rejects marker not rewritten")
	}
}

func TestFailureAndInterruptLeaveNoMarker(t *testing.T) {
	tests := []struct {
		name     string
		fail     error
		cancel   bool
		wantCode int
	}{
		{"bad input", BadInput(errors.New("bad row")), false, ExitBadInput},
		{"bug", errors.New("boom"), false, ExitBug},
		{"signal", nil, true, ExitTempFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			st := store.NewMem()
			var runs atomic.Int64
			stg, step := testStage(&runs, tt.fail)
			spec := shard.Spec{Index: 0, Count: 2}
			_, err := RunShard(ctx, testConfig(t, ""), stg, step, spec, st, zerolog.Nop(), Options{})
			if ExitCode(err) != tt.wantCode {
				t.Errorf("exit %d (%v), want %d", ExitCode(err), err, tt.wantCode)
			}
			for _, k := range DoneKeys("r", step, spec) {
				if done, _ := layout.Done(context.Background(), st, k); done {
					t.Errorf("failed shard has a completion marker %s", k)
				}
			}
		})
	}
}

// TestPanicIsABug: a panic in a step is exit 1 (a bug), not the crash
// whose exit code 2 would read as bad input.
func TestPanicIsABug(t *testing.T) {
	step := Step{Name: "map", Outputs: []string{"problems"}, Run: func(context.Context, *Env) error { panic("boom") }}
	_, err := RunShard(context.Background(), testConfig(t, ""), Stage{Name: "p", Steps: []Step{step}}, step, shard.Spec{Index: 0, Count: 1}, store.NewMem(), zerolog.Nop(), Options{})
	if ExitCode(err) != ExitBug || !strings.Contains(err.Error(), "panic in stage p step map: boom") {
		t.Errorf("%v (exit %d)", err, ExitCode(err))
	}
}

// TestUndeclaredUseIsABug: reading, writing, checkpointing or deriving a
// seed without declaring it fails, so the declarations the graph is built
// from stay true.
func TestUndeclaredUseIsABug(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := store.NewMem()
	step := Step{Name: "map", Outputs: []string{"problems"}}
	env := NewEnv(cfg, Stage{Name: "u", Section: toySection}, step, shard.Spec{Index: 0, Count: 1}, st, st, zerolog.Nop())
	var ue *UndeclaredError
	if _, err := env.Upstream(ctx, "corpus"); !errors.As(err, &ue) || ExitCode(err) != ExitBug {
		t.Errorf("undeclared input: %v", err)
	}
	if err := WriteOutput(ctx, env, dataset.Rejects, nil); !errors.As(err, &ue) {
		t.Errorf("undeclared output: %v", err)
	}
	if err := WriteReport(ctx, env, "x.md", nil); !errors.As(err, &ue) {
		t.Errorf("undeclared report: %v", err)
	}
	if _, err := env.CheckpointPrefix(); !errors.As(err, &ue) {
		t.Errorf("undeclared checkpoints: %v", err)
	}
	if _, err := env.LLMCache(); !errors.As(err, &ue) {
		t.Errorf("undeclared cache: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `does not declare "seed"`) {
				t.Errorf("undeclared seed: %v", r)
			}
		}()
		env.Seed("x")
	}()
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitBug},
		{fmt.Errorf("wrap: %w", BadInput(errors.New("x"))), ExitBadInput},
		{&config.Error{Problems: []string{"x"}}, ExitBadInput},
		{&dataset.SchemaError{URI: "u", Column: "c"}, ExitBadInput},
		{&dataset.NotParquetError{URI: "u", Err: errors.New("x")}, ExitBadInput},
		{&layout.IncompleteError{Dataset: "d"}, ExitBadInput},
		{fmt.Errorf("x: %w", &StaleError{Stage: "s"}), ExitBadInput},
		{&UndeclaredError{Stage: "s"}, ExitBug},
		{fmt.Errorf("x: %w", context.Canceled), ExitTempFail},
		{ErrInterrupted, ExitTempFail},
		{fmt.Errorf("document d: %w", fmt.Errorf("llm: chat: giving up after 8 attempts: %w (%w)", errors.New("HTTP 503"), llm.ErrExhausted)), ExitTempFail},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// readStep reads `problems` the way a stage does.
var readStep = Step{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"corpus"}}

func TestUpstreamNeedsCompleteDataset(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	if _, err := RunShard(ctx, cfg, stg, step, shard.Spec{Index: 0, Count: 2}, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	env := NewEnv(cfg, Stage{Name: "reader"}, readStep, shard.Spec{Index: 0, Count: 1}, st, st, zerolog.Nop())
	_, err := env.Upstream(ctx, "problems")
	if ExitCode(err) != ExitBadInput {
		t.Fatalf("half-done upstream: %v", err)
	}
	if _, err := RunShard(ctx, cfg, stg, step, shard.Spec{Index: 1, Count: 2}, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	parts, err := env.Upstream(ctx, "problems")
	if err != nil || len(parts) != 2 {
		t.Fatalf("Upstream = %v, %v", parts, err)
	}
	// Parts not opened are recorded as unread, with their writer's hash;
	// a part read is recorded as read, hashed from its bytes.
	rows, err := ReadRange[dataset.Problem](ctx, env, parts, 1, 2)
	if err != nil || len(rows) != 1 || rows[0].ID != "1" {
		t.Fatalf("ReadRange = %v, %v", rows, err)
	}
	in := env.Inputs()
	if len(in) != 2 || !in[0].Unread || in[1].Unread || in[0].Dataset != "problems" || in[1].SHA256 != parts[1].SHA256 {
		t.Errorf("inputs %+v", in)
	}
}

// TestChangedPartIsRefused: a part whose bytes changed after it was
// written (same size) is refused before any row is used, naming the
// writer; the shard stays not done.
func TestChangedPartIsRefused(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "toy: {shards: 1}\n")
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	if _, err := RunShard(ctx, cfg, stg, step, shard.Spec{Index: 0, Count: 1}, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	key := layout.DataKey("r", "problems", shard.Spec{Index: 0, Count: 1})
	b, err := store.ReadAll(ctx, st, key)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if _, err := store.Put(ctx, st, key, b, store.Replace); err != nil {
		t.Fatal(err)
	}
	used := false
	reader := Step{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"corpus"}, Run: func(ctx context.Context, env *Env) error {
		parts, err := env.Upstream(ctx, "problems")
		if err != nil {
			return err
		}
		return ScanPart(ctx, env, parts[0], func([]dataset.Problem) error { used = true; return nil })
	}}
	_, err = RunShard(ctx, cfg, Stage{Name: "reader", Steps: []Step{reader}}, reader, shard.Spec{Index: 0, Count: 1}, st, zerolog.Nop(), Options{})
	var ch *dataset.ChangedError
	if !errors.As(err, &ch) || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "test map (shard 0/1)") || used {
		t.Errorf("changed part: %v (exit %d), rows used %v", err, ExitCode(err), used)
	}
}

// TestStaleByInputs: a done shard whose input part was recomputed with
// other bytes is stale, naming the part; while the input is incomplete
// (being recomputed) it is pending, not stale.
func TestStaleByInputs(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "toy: {shards: 1, label: a}\n")
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	one := shard.Spec{Index: 0, Count: 1}
	if _, err := RunShard(ctx, cfg, stg, step, one, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	reader := Step{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"corpus"}, Run: func(ctx context.Context, env *Env) error {
		parts, err := env.Upstream(ctx, "problems")
		if err != nil {
			return err
		}
		rows, err := ReadPart[dataset.Problem](ctx, env, parts[0])
		if err != nil {
			return err
		}
		docs := make([]dataset.Document, len(rows))
		for i, r := range rows {
			docs[i] = dataset.Document{ID: r.ID}
		}
		return WriteOutput(ctx, env, dataset.Corpus, docs)
	}}
	rst := Stage{Name: "reader", Steps: []Step{reader}}
	res, err := RunShard(ctx, cfg, rst, reader, one, st, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in := res.Manifest.Inputs; len(in) != 1 || in[0].Unread || in[0].Dataset != "problems" {
		t.Fatalf("inputs %+v", in)
	}
	why, err := Staleness(ctx, cfg, rst, reader, res.Manifest, st)
	if err != nil || why.Stale() || why.Code != "" {
		t.Fatalf("fresh: %+v, %v", why, err)
	}
	// The writer reruns with another label: other bytes.
	other := testConfig(t, "toy: {shards: 1, label: b}\n")
	if _, err := RunShard(ctx, other, stg, step, one, st, zerolog.Nop(), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	why, err = Staleness(ctx, cfg, rst, reader, res.Manifest, st)
	if err != nil || !why.Stale() || len(why.Config) != 0 || !strings.Contains(why.String(), "input problems changed: part-00000-of-00001.parquet") {
		t.Errorf("after the writer changed: %+v, %v", why, err)
	}
	if _, err := RunShard(ctx, other, rst, reader, one, st, zerolog.Nop(), Options{}); ExitCode(err) != ExitBadInput {
		t.Errorf("a stale reader was served: %v", err)
	}
	if err := st.Delete(ctx, layout.DoneKey("r", "problems", one)); err != nil {
		t.Fatal(err)
	}
	why, err = Staleness(ctx, cfg, rst, reader, res.Manifest, st)
	if err != nil || why.Stale() || len(why.Pending) != 1 {
		t.Errorf("while the input is incomplete: %+v, %v", why, err)
	}
}

func TestCodeVersion(t *testing.T) {
	defer func(c, d string) { codeCommit, codeDirty = c, d }(codeCommit, codeDirty)
	codeCommit, codeDirty = "0123456789abcdef0123456789abcdef01234567", "+dirty.abc"
	if got := CodeVersion(); got != "0123456789abcdef0123456789abcdef01234567+dirty.abc" {
		t.Errorf("CodeVersion = %q", got)
	}
	codeCommit = ""
	if got := CodeVersion(); got == "" || got == "(devel)" {
		t.Errorf("unstamped CodeVersion = %q", got)
	}
}

// TestStepIgnores: a section key a step ignores is in none of its
// manifests, and changing it leaves the step done, not stale; the
// step's config hash is over what it records.
func TestStepIgnores(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	step.Ignores = []string{"toy.label"}
	stg.Steps = []Step{step}
	spec := shard.Spec{Index: 0, Count: 2}
	cfg := testConfig(t, "toy: {label: a}\n")
	res, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Manifest.Config["toy.label"]; ok || res.Manifest.Config["seed"] != "0" {
		t.Errorf("manifest config %v: want seed, not the ignored toy.label", res.Manifest.Config)
	}
	env := NewEnv(cfg, stg, step, spec, st, st, zerolog.Nop())
	if env.ConfigHash() != res.Manifest.ConfigHash {
		t.Errorf("env config hash %s, manifest %s", env.ConfigHash(), res.Manifest.ConfigHash)
	}
	res, err = RunShard(ctx, testConfig(t, "toy: {label: b}\n"), stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || !res.Skipped || runs.Load() != 1 {
		t.Errorf("after an ignored change: %+v, %v, runs %d; want skipped", res, err, runs.Load())
	}
	// Without Ignores the same change is stale.
	_, plain := testStage(&runs, nil)
	if _, err := RunShard(ctx, testConfig(t, "toy: {label: b}\n"), stg, plain, spec, st, zerolog.Nop(), Options{}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a step that reads toy.label: %v, want stale", err)
	}
}

// loggingStore logs a line through the call's context on every Stat, as
// the S3 store logs each retry ("s3: retrying").
type loggingStore struct{ store.Store }

func (s loggingStore) Stat(ctx context.Context, key string) (store.Info, error) {
	zerolog.Ctx(ctx).Info().Str("op", "HeadObject").Msg("s3: retrying")
	return s.Store.Stat(ctx, key)
}

// TestDoneCheckLogsWithShardFields: the "is this shard already done"
// check's storage calls log with the shard's fields. They ran under a
// context without the shard's logger, so its S3 retries logged nothing
// (9 retries over 27 s, 0 lines).
func TestDoneCheckLogsWithShardFields(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	var logs strings.Builder
	log := zerolog.New(&logs).With().Str("stage", "test").Logger()
	spec := shard.Spec{Index: 1, Count: 2}
	st := loggingStore{store.NewMem()}
	for range 2 { // the first run checks and runs; the second checks and skips
		if _, err := RunShard(ctx, cfg, stg, step, spec, st, log, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	lines := 0
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"s3: retrying"`) {
			lines++
			if !strings.Contains(l, `"shard":"1/2"`) || !strings.Contains(l, `"step":"map"`) || !strings.Contains(l, `"stage":"test"`) {
				t.Errorf("retry line without the shard's fields: %s", l)
			}
		}
	}
	if lines < 4 { // two done keys, checked by each of the two runs
		t.Errorf("%d retry lines from the done checks, want at least 4:\n%s", lines, logs.String())
	}
}

// TestRefusedForceKeepsTheManifests: --force on a done shard whose input
// part was tampered with since is refused (exit 2, naming the part and
// its writer) before its manifests are removed or the step runs, so the
// run stays as complete as it was; with the part restored it redoes the
// shard.
func TestRefusedForceKeepsTheManifests(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "toy: {shards: 1}\n")
	st := &countingStore{Store: store.NewMem()}
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	one := shard.Spec{Index: 0, Count: 1}
	if _, err := RunShard(ctx, cfg, stg, step, one, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int64
	reader := Step{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"corpus"}, Run: func(ctx context.Context, env *Env) error {
		reads.Add(1)
		parts, err := env.Upstream(ctx, "problems")
		if err != nil {
			return err
		}
		var rows []dataset.Problem
		if err := ScanPart(ctx, env, parts[0], func(r []dataset.Problem) error { rows = append(rows, r...); return nil }); err != nil {
			return err
		}
		return WriteOutput(ctx, env, dataset.Corpus, []dataset.Document{{ID: rows[0].ID}})
	}}
	rstage := Stage{Name: "reader", Steps: []Step{reader}}
	if _, err := RunShard(ctx, cfg, rstage, reader, one, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	key := layout.DataKey("r", "problems", one)
	good, err := store.ReadAll(ctx, st, key)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0xff
	if _, err := store.Put(ctx, st, key, bad, store.Replace); err != nil {
		t.Fatal(err)
	}
	st.reset()
	_, err = RunShard(ctx, cfg, rstage, reader, one, st, zerolog.Nop(), Options{Force: true})
	var ch *dataset.ChangedError
	if !errors.As(err, &ch) || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "test map (shard 0/1)") {
		t.Fatalf("--force on a tampered input: %v (exit %d), want exit 2 naming the part's writer", err, ExitCode(err))
	}
	if st.deletes.Load() != 0 || reads.Load() != 1 {
		t.Errorf("a refused --force removed %d objects and ran the step %d times more", st.deletes.Load(), reads.Load()-1)
	}
	if done, _ := layout.Done(ctx, st, layout.DoneKey("r", "corpus", one)); !done {
		t.Error("a refused --force left the shard not done")
	}
	if _, err := store.Put(ctx, st, key, good, store.Replace); err != nil {
		t.Fatal(err)
	}
	if res, err := RunShard(ctx, cfg, rstage, reader, one, st, zerolog.Nop(), Options{Force: true}); err != nil || res.Skipped || reads.Load() != 2 {
		t.Fatalf("--force with the part restored: %+v, %v", res, err)
	}
}

// TestUndeclaredSectionIsABug: a step sees only the config sections its
// stage declares (its own and those Uses names): reading another fails
// the shard as a bug, so a manifest never hashes fewer keys than its step
// read. Declaring the section in Uses lets the same step read it.
func TestUndeclaredSectionIsABug(t *testing.T) {
	other := config.SectionOf[toyConfig]{Name: "other"}
	label := config.KeyOf[toyConfig, string]{Section: other, Name: "label", Field: func(c *toyConfig) string { return c.Label }}
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nother: {label: x}\n"), toySection, other)
	if err != nil {
		t.Fatal(err)
	}
	run := func(uses []string, read func(*config.Config) string) (Result, error) {
		step := Step{Name: "map", Outputs: []string{"problems"}, Run: func(ctx context.Context, env *Env) error {
			_ = toySection.Of(env.Config) // its own: always allowed
			return WriteOutput(ctx, env, dataset.Problems, []dataset.Problem{{ID: "1", Origin: read(env.Config)}})
		}}
		st := Stage{Name: "u", Section: toySection, Uses: func(*config.Config) []string { return uses }, Steps: []Step{step}}
		return RunShard(context.Background(), cfg, st, step, shard.Spec{Index: 0, Count: 1}, store.NewMem(), zerolog.Nop(), Options{})
	}
	whole := func(c *config.Config) string { return other.Of(c).Label }
	for _, tc := range []struct {
		name    string
		uses    []string
		read    func(*config.Config) string
		wantErr string
	}{
		{"the section, undeclared", nil, whole, "u map read the other: section, which it does not declare"},
		{"the key, undeclared", nil, label.Get, "u map read other.label, which it does not declare"},
		{"the key, another declared", []string{"other.shards"}, label.Get, "u map read other.label, which it does not declare"},
		{"the whole section, one key declared", []string{"other.label"}, whole, "u map read the whole other: section but declares only other.label"},
		{"the key, declared", []string{label.Path()}, label.Get, ""},
		{"the key, its section declared", []string{"other"}, label.Get, ""},
		{"the section, declared", []string{"other"}, whole, ""},
	} {
		res, err := run(tc.uses, tc.read)
		if tc.wantErr != "" {
			if ExitCode(err) != ExitBug || err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %v (exit %d), want a bug: %q", tc.name, err, ExitCode(err), tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := res.Manifest.Config["other.label"]; got != `"x"` {
			t.Errorf("%s: the manifest records other.label = %s, want \"x\" (%v)", tc.name, got, res.Manifest.Config)
		}
	}
}
