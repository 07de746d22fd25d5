package pipeline

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"syscall"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
)

// The run's lease: one `saber run` at a time works on a run. It holds
// <run>/_lease.json, created write-once (local: link(2), which fails on an
// existing name; S3: If-None-Match: *), so of two runs started together
// exactly one gets it; the other waits (--wait) or exits 75 naming the
// holder. The lease object is never rewritten: the holder renews its
// heartbeat every LeaseOptions.Heartbeat in an object of its own,
// <run>/_lease-heartbeat.<id>.json, so a holder whose lease was broken and
// taken by another run cannot overwrite the new lease (the store offers
// write-once, not compare-and-swap); at each beat it reads the lease back,
// and stops its run at once when the lease is no longer its own. A lease
// whose holder ran on this host and whose process is gone (a `kill -9`ed
// saber run) is broken by the next taker, which logs it: nothing can be
// working under it. One whose heartbeat is older than StaleAfter, held
// from another host, is reported as stale (exit 2: a person must look)
// but never taken over by a run: only `saber lease break` removes it,
// because a heartbeat can also be late for a holder that is alive (a
// stalled filesystem, clock skew between hosts).

// Lease defaults.
const (
	DefaultLeaseHeartbeat  = 30 * time.Second
	DefaultLeaseStaleAfter = 5 * time.Minute
)

// LeaseOwner is what the lease object holds: who works on the run.
type LeaseOwner struct {
	// ID is unique to one holding (host, pid, start time and random bits):
	// a holder recognises its own lease by it.
	ID      string    `json:"id"`
	Run     string    `json:"run"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	User    string    `json:"user,omitempty"`
	Command string    `json:"command,omitempty"`
	Started time.Time `json:"started"`
	// Heartbeat is when the holder last renewed the lease: in the lease
	// object, its start; ReadLease fills in the latest heartbeat.
	Heartbeat time.Time `json:"heartbeat"`
}

// String names the holder for messages.
func (o LeaseOwner) String() string {
	s := fmt.Sprintf("%s pid %d", o.Host, o.PID)
	if o.User != "" {
		s += " (user " + o.User + ")"
	}
	if o.Command != "" {
		s += fmt.Sprintf(", %q", o.Command)
	}
	return s + ", started " + o.Started.Format(time.RFC3339)
}

// Age is how long ago the holder last renewed the lease.
func (o LeaseOwner) Age(now time.Time) time.Duration { return now.Sub(o.Heartbeat).Round(time.Second) }

// Gone reports whether the holder runs on this host and its process no
// longer exists: then the lease is certainly stale, whatever its age.
func (o LeaseOwner) Gone() bool {
	host, _ := os.Hostname()
	if o.Host != host || o.PID <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(o.PID, 0), syscall.ESRCH)
}

// LeaseOptions configure AcquireLease.
type LeaseOptions struct {
	// Wait: when the lease is held, wait for it (checking every Poll)
	// instead of failing with a *LeaseHeldError.
	Wait bool
	// Heartbeat is how often the holder renews the lease (default 30s);
	// StaleAfter is the heartbeat age from which a lease is reported as
	// stale (default 5m); Poll is how often a waiter looks again (default
	// Heartbeat/6, within [1s, Heartbeat]).
	Heartbeat, StaleAfter, Poll time.Duration
	// Command is the holder's command line, for the messages of others.
	Command string
	// Out receives the waiting and stale-lease notes.
	Out io.Writer
}

func (o LeaseOptions) withDefaults() LeaseOptions {
	o.Heartbeat = cmp.Or(o.Heartbeat, DefaultLeaseHeartbeat)
	o.StaleAfter = cmp.Or(o.StaleAfter, DefaultLeaseStaleAfter)
	o.Poll = cmp.Or(o.Poll, min(o.Heartbeat, max(time.Second, o.Heartbeat/6)))
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

// LeaseHeldError is a run refused because another holds the run's lease;
// it exits 75 (try again later), and says how to wait for or break it.
type LeaseHeldError struct {
	URI    string
	Holder LeaseOwner
	// Age is the heartbeat's age; Stale says it passed StaleAfter, or the
	// holder's process is gone.
	Age   time.Duration
	Stale bool
}

func (e *LeaseHeldError) Error() string {
	run := e.Holder.Run
	if e.Stale {
		return fmt.Sprintf("run %s is leased by %s, but the lease is stale (last heartbeat %s ago; %s): if that run is gone, check with `saber lease show --config <run.yaml>` and remove it with `saber lease break --config <run.yaml>`",
			run, e.Holder, e.Age, e.URI)
	}
	return fmt.Sprintf("run %s is in use by another saber run: %s (last heartbeat %s ago; lease %s); wait for it with `saber run --wait`, or, if that run is gone, see `saber lease show --config <run.yaml>` and `saber lease break --config <run.yaml>`",
		run, e.Holder, e.Age, e.URI)
}

// ExitCode is 75 for a live holder: the run can go ahead once it is
// done. A stale lease is 2: no retry will see it go (its holder is not
// there to release it), a person must check and break it.
func (e *LeaseHeldError) ExitCode() int {
	if e.Stale {
		return stage.ExitBadInput
	}
	return stage.ExitTempFail
}

// LeaseLostError is a run stopped because its lease was broken or taken
// over while it ran: another run may now be working on the same run.
type LeaseLostError struct {
	URI string
	// Now is the owner found instead (zero when the lease was removed).
	Now LeaseOwner
}

func (e *LeaseLostError) Error() string {
	if e.Now.ID == "" {
		return fmt.Sprintf("the run's lease %s was removed (saber lease break?) while this run held it; stopped so that two runs do not work on it at once: rerun to resume", e.URI)
	}
	return fmt.Sprintf("the run's lease %s now belongs to %s; stopped so that two runs do not work on it at once: rerun once it is done", e.URI, e.Now)
}

// ExitCode is 75: rerunning resumes where the run stopped.
func (e *LeaseLostError) ExitCode() int { return stage.ExitTempFail }

// Lease is a held run lease; Release gives it back.
type Lease struct {
	st    store.Store
	key   string
	owner LeaseOwner
	opt   LeaseOptions

	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// ReadLease returns the run's lease holder, with its latest heartbeat, or
// an error wrapping store.ErrNotExist when no run holds the lease.
func ReadLease(ctx context.Context, st store.Store, run string) (LeaseOwner, error) {
	key := layout.LeaseKey(run)
	data, err := store.ReadAll(ctx, st, key)
	if err != nil {
		return LeaseOwner{}, err
	}
	var o LeaseOwner
	if err := json.Unmarshal(data, &o); err != nil {
		return LeaseOwner{}, fmt.Errorf("decode lease %s: %w (remove it with `saber lease break --force`)", st.URI(key), err)
	}
	var beat struct {
		Heartbeat time.Time `json:"heartbeat"`
	}
	hb := layout.LeaseHeartbeatKey(run, o.ID)
	data, err = store.ReadAll(ctx, st, hb)
	switch {
	case errors.Is(err, store.ErrNotExist):
		// Not renewed yet: the lease's own time counts.
	case err != nil:
		return LeaseOwner{}, err
	case json.Unmarshal(data, &beat) == nil && beat.Heartbeat.After(o.Heartbeat):
		o.Heartbeat = beat.Heartbeat
	}
	return o, nil
}

// AcquireLease takes the run's lease, waiting for it with opt.Wait, and
// renews it until Release. Its Context is ctx, cancelled should the lease
// be lost; the run works under it.
func AcquireLease(ctx context.Context, st store.Store, run string, opt LeaseOptions) (*Lease, error) {
	opt = opt.withDefaults()
	host, _ := os.Hostname()
	u := ""
	if cu, err := user.Current(); err == nil {
		u = cu.Username
	}
	now := time.Now().UTC()
	var rnd [6]byte
	rand.Read(rnd[:])
	owner := LeaseOwner{
		ID:  fmt.Sprintf("%s-%d-%d-%s", host, os.Getpid(), now.UnixNano(), hex.EncodeToString(rnd[:])),
		Run: run, Host: host, PID: os.Getpid(), User: u, Command: opt.Command, Started: now, Heartbeat: now,
	}
	key := layout.LeaseKey(run)
	noted := ""
	for {
		data, err := json.MarshalIndent(owner, "", "  ")
		if err != nil {
			return nil, err
		}
		_, err = store.Put(ctx, st, key, append(data, '\n'), store.Once)
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrExist) {
			return nil, fmt.Errorf("take the run's lease %s: %w", st.URI(key), err)
		}
		holder, rerr := ReadLease(ctx, st, run)
		if errors.Is(rerr, store.ErrNotExist) {
			continue // released between our create and our read: try again
		}
		if rerr != nil {
			return nil, fmt.Errorf("read the run's lease: %w", rerr)
		}
		if holder.Gone() {
			if err := breakDeadLease(ctx, st, run, holder); err != nil {
				return nil, err
			}
			fmt.Fprintf(opt.Out, "broke the run's lease %s: its holder %s is no longer running on this host\n", st.URI(key), holder)
			continue
		}
		held := &LeaseHeldError{URI: st.URI(key), Holder: holder, Age: holder.Age(time.Now())}
		held.Stale = held.Age > opt.StaleAfter
		if !opt.Wait {
			return nil, held
		}
		if note := fmt.Sprint(held.Stale, holder.ID); note != noted {
			noted = note
			if held.Stale {
				fmt.Fprintf(opt.Out, "waiting for the run's lease: %v\n", held)
			} else {
				fmt.Fprintf(opt.Out, "waiting for the run's lease, held by %s (%s)\n", holder, held.URI)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the run's lease held by %s: %w", holder, ctx.Err())
		case <-time.After(opt.Poll):
		}
		owner.Started = time.Now().UTC()
		owner.Heartbeat = owner.Started
	}
	l := &Lease{st: st, key: key, owner: owner, opt: opt, done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	parallel.Go(l.renew)
	return l, nil
}

// Context is the context the run works under: cancelled, with a
// *LeaseLostError as its cause, when the lease is lost.
func (l *Lease) Context() context.Context { return l.ctx }

// Owner is the holder the lease records.
func (l *Lease) Owner() LeaseOwner { return l.owner }

// renew writes the heartbeat every opt.Heartbeat until Release. A lease
// found removed or owned by another stops the run; a failed read or write
// (storage blips) is retried at the next beat.
func (l *Lease) renew() {
	defer close(l.done)
	t := time.NewTicker(l.opt.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		cur, err := ReadLease(l.ctx, l.st, l.owner.Run)
		switch {
		case errors.Is(err, store.ErrNotExist):
			l.cancel(&LeaseLostError{URI: l.st.URI(l.key)})
			return
		case err != nil:
			continue
		case cur.ID != l.owner.ID:
			l.cancel(&LeaseLostError{URI: l.st.URI(l.key), Now: cur})
			return
		}
		l.owner.Heartbeat = time.Now().UTC()
		data, _ := json.Marshal(map[string]time.Time{"heartbeat": l.owner.Heartbeat})
		store.Put(l.ctx, l.st, layout.LeaseHeartbeatKey(l.owner.Run, l.owner.ID), data, store.Replace)
	}
}

// Release stops the heartbeat and removes the lease if it is still this
// holder's, also when the run's context was cancelled (a signal). It
// returns runErr, or the *LeaseLostError when the lease was lost (the
// run's own error is then its consequence), or the error of removing it.
func (l *Lease) Release(runErr error) error {
	lost := context.Cause(l.ctx)
	l.cancel(nil)
	<-l.done
	// The run's context may be cancelled already (SIGTERM): removing the
	// lease must still happen, bounded.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), time.Minute)
	defer cancel()
	hb := layout.LeaseHeartbeatKey(l.owner.Run, l.owner.ID)
	var ll *LeaseLostError
	if errors.As(lost, &ll) {
		l.st.Delete(ctx, hb)
		return ll
	}
	cur, err := ReadLease(ctx, l.st, l.owner.Run)
	if err == nil && cur.ID == l.owner.ID {
		err = l.st.Delete(ctx, l.key)
	}
	if err == nil || errors.Is(err, store.ErrNotExist) {
		err = l.st.Delete(ctx, hb)
	}
	if err != nil && !errors.Is(err, store.ErrNotExist) && runErr == nil {
		return fmt.Errorf("release the run's lease %s: %w (remove it with `saber lease break`)", l.st.URI(l.key), err)
	}
	return runErr
}

// breakDeadLease removes the lease of dead, a holder gone from this host,
// if it is still dead's: read back just before, so that a lease another
// taker has meanwhile put in its place is left alone (the window left is
// the one between that read and the delete; a holder whose lease goes
// then sees it at its next beat and stops, exit 75).
func breakDeadLease(ctx context.Context, st store.Store, run string, dead LeaseOwner) error {
	now, err := ReadLease(ctx, st, run)
	if errors.Is(err, store.ErrNotExist) || err == nil && now.ID != dead.ID {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the run's lease: %w", err)
	}
	key := layout.LeaseKey(run)
	if err := st.Delete(ctx, key); err != nil {
		return fmt.Errorf("remove the lease %s of %s, gone from this host: %w", st.URI(key), dead, err)
	}
	st.Delete(ctx, layout.LeaseHeartbeatKey(run, dead.ID)) // garbage now; a leftover is harmless
	return nil
}

// BreakLease removes the run's lease and returns who held it. A lease
// whose heartbeat is fresher than staleAfter (0: the default) and whose
// holder is not known to be gone is refused unless force.
func BreakLease(ctx context.Context, st store.Store, run string, staleAfter time.Duration, force bool) (LeaseOwner, error) {
	key := layout.LeaseKey(run)
	o, err := ReadLease(ctx, st, run)
	if errors.Is(err, store.ErrNotExist) {
		return LeaseOwner{}, fmt.Errorf("run %s holds no lease (%s): nothing to break: %w", run, st.URI(key), err)
	}
	if err != nil && !force {
		return LeaseOwner{}, err
	}
	staleAfter = cmp.Or(staleAfter, DefaultLeaseStaleAfter)
	if err == nil && !force && o.Age(time.Now()) <= staleAfter && !o.Gone() {
		return o, stage.BadInput(fmt.Errorf("the lease of run %s is live: %s renewed it %s ago (it is stale after %s); stop that run, or, if you are sure it is gone (its host died), add --force",
			run, o, o.Age(time.Now()), staleAfter))
	}
	if err := st.Delete(ctx, key); err != nil {
		return o, fmt.Errorf("remove %s: %w", st.URI(key), err)
	}
	if o.ID != "" {
		st.Delete(ctx, layout.LeaseHeartbeatKey(run, o.ID)) // garbage now; a leftover is harmless
	}
	return o, nil
}

// RunLocal takes the run's lease (opt.Lease), runs the stages under it
// (see runLocal) and releases it, also after a failure or a signal. A run
// whose lease another holds fails with a *LeaseHeldError (exit 75), or
// waits for it with opt.Lease.Wait; a run whose lease is broken while it
// runs stops its shards and fails with a *LeaseLostError. Before releasing
// the lease it records how the run ended in <run>/_local.json
// (localrecord.go), for saber status.
func (g *Graph) RunLocal(ctx context.Context, cfg *config.Config, stages []stage.Stage, opt LocalOptions) ([]ShardRun, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	if opt.Lease.Out == nil {
		opt.Lease.Out = opt.Out
	}
	l, err := AcquireLease(ctx, root, cfg.Run, opt.Lease)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	runs, err := g.runLocal(l.Context(), cfg, stages, opt)
	// The record is written while the lease is still held, so that two runs
	// never write it at once; a run whose lease was taken over leaves it to
	// the new holder. A signal cancelled the run's context, not the record's
	// write, which is bounded as Release's is.
	var lost *LeaseLostError
	if !errors.As(context.Cause(l.Context()), &lost) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(l.Context()), time.Minute)
		if rerr := recordLocalRun(rctx, root, cfg.Run, opt, started, runs, err); rerr != nil && opt.Out != nil {
			// The record only helps saber status explain a failure; the
			// manifests still say what is done, so the run's outcome stands.
			fmt.Fprintf(opt.Out, "note: saber status will not show how this run ended: %v\n", rerr)
		}
		cancel()
	}
	return runs, l.Release(err)
}
