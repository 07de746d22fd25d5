package judge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
)

// checkpoints are one shard's round checkpoints, under its prefix:
// round-RRRR.<token>.parquet holds every judgment of rounds 1..R,
// timings-RRRR.<token>.parquet their timings. The token is this process's
// own (host, pid, random bits), so two processes judging the same shard
// (a rerun started while a first one still runs, a requeued Slurm task
// beside its old self) never write or delete each other's files: each
// keeps only its newest round and deletes only its own older one. A
// process resumes from the newest complete checkpoint of any token, and
// tolerates one vanishing while it reads (its owner finished). Only when
// the shard's outputs are written are the other tokens' checkpoints
// removed: they are then superseded, and no process reads a checkpoint
// but at its start. Names without a token (older saber) are read as well.
type checkpoints struct {
	st     store.Store
	prefix string
	token  string
	// loaded is the checkpoint resumed from (its round-… key), for messages.
	loaded string
}

// procToken names this process's checkpoints: unique per process, and
// only letters, digits and '-', so that names parse back.
var procToken = func() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, host)
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}()

func newCheckpoints(st store.Store, prefix string) checkpoints {
	return checkpoints{st: st, prefix: prefix, token: procToken}
}

// key is the name of this process's checkpoint file of kind for round r.
func (c checkpoints) key(kind string, r int) string { return c.keyOf(kind, r, c.token) }

func (c checkpoints) keyOf(kind string, r int, token string) string {
	if token == "" {
		return fmt.Sprintf("%s/%s-%04d.parquet", c.prefix, kind, r)
	}
	return fmt.Sprintf("%s/%s-%04d.%s.parquet", c.prefix, kind, r, token)
}

// parseKey inverts keyOf for the base name of a checkpoint file.
func parseKey(base string) (kind string, r int, token string, ok bool) {
	name, ok := strings.CutSuffix(base, ".parquet")
	if !ok {
		return "", 0, "", false
	}
	name, token, _ = strings.Cut(name, ".")
	kind, num, ok := strings.Cut(name, "-")
	if !ok || (kind != "round" && kind != "timings") || len(num) != 4 {
		return "", 0, "", false
	}
	r, err := strconv.Atoi(num)
	if err != nil || r <= 0 {
		return "", 0, "", false
	}
	return kind, r, token, true
}

func (c checkpoints) loadedURI() string { return c.st.URI(c.loaded) }

// load returns the newest complete checkpoint of any process (0 rounds
// when none). One that vanishes while it is read was superseded by a
// finished run of the shard: load looks again.
func (c *checkpoints) load(ctx context.Context) (int, []dataset.Judgment, []dataset.JudgeTiming, error) {
	for attempt := 0; ; attempt++ {
		r, rows, timings, err := c.loadOnce(ctx)
		if errors.Is(err, store.ErrNotExist) && attempt < 3 {
			continue
		}
		return r, rows, timings, err
	}
}

func (c *checkpoints) loadOnce(ctx context.Context) (int, []dataset.Judgment, []dataset.JudgeTiming, error) {
	infos, err := c.st.List(ctx, c.prefix+"/")
	if err != nil {
		return 0, nil, nil, fmt.Errorf("list %s: %w", c.st.URI(c.prefix), err)
	}
	have := map[string]bool{}
	for _, in := range infos {
		have[in.Key] = true
	}
	best, bestToken := 0, ""
	for _, in := range infos {
		kind, r, token, ok := parseKey(path.Base(in.Key))
		if !ok || kind != "round" || !have[c.keyOf("timings", r, token)] {
			continue
		}
		// Prefer this process's own at equal rounds (it cannot vanish).
		if r > best || r == best && token == c.token {
			best, bestToken = r, token
		}
	}
	if best == 0 {
		return 0, nil, nil, nil
	}
	c.loaded = c.keyOf("round", best, bestToken)
	rows, err := dataset.Read[dataset.Judgment](ctx, c.st, c.loaded)
	if err != nil {
		return 0, nil, nil, err
	}
	timings, err := dataset.Read[dataset.JudgeTiming](ctx, c.st, c.keyOf("timings", best, bestToken))
	if err != nil {
		return 0, nil, nil, err
	}
	return best, rows, timings, nil
}

// save writes round r's checkpoint (timings first: a round file is only
// trusted beside its timings) and removes this process's previous one.
func (c checkpoints) save(ctx context.Context, r int, rows []dataset.Judgment, timings []dataset.JudgeTiming) error {
	if _, err := dataset.WriteRows(ctx, c.st, c.key("timings", r), timings); err != nil {
		return err
	}
	if _, err := dataset.WriteRows(ctx, c.st, c.key("round", r), rows); err != nil {
		return err
	}
	if r > 1 {
		for _, kind := range []string{"round", "timings"} {
			if err := c.st.Delete(ctx, c.key(kind, r-1)); err != nil {
				return fmt.Errorf("delete %s: %w", c.st.URI(c.key(kind, r-1)), err)
			}
		}
	}
	return nil
}

// clear removes the shard's checkpoints once its outputs are written: this
// process's, and every other's, which the outputs now supersede (a process
// still judging the shard never reads its checkpoints again, and deleting
// a missing file is no error to it).
func (c checkpoints) clear(ctx context.Context) error {
	infos, err := c.st.List(ctx, c.prefix+"/")
	if err != nil {
		return err
	}
	var errs []error
	for _, in := range infos {
		if _, _, _, ok := parseKey(path.Base(in.Key)); ok {
			errs = append(errs, c.st.Delete(ctx, in.Key))
		}
	}
	return errors.Join(errs...)
}
