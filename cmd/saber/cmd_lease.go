package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdLease(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const usage = `saber lease — show or break the run's lease

Usage:
  saber lease show  --config run.yaml
  saber lease break --config run.yaml [--force]

A saber run holds its run's lease, <root>/<run>/_lease.json, while it works,
and renews its heartbeat every 30s; a second saber run on the same run exits
75 naming the holder, or waits with --wait. show prints the holder (host,
pid, user, command, start, heartbeat age) and whether the lease is stale:
its heartbeat older than 5 minutes, or its process gone from this host.
break removes a stale lease, left by a run that was killed (kill -9) or lost
its host; a live one only with --force, for a holder you know is gone.
Exit 0 on success, 2 when there is nothing to break or the lease is live.
`
	if len(args) == 0 || (args[0] != "show" && args[0] != "break") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, usage)
			return stage.ExitOK
		}
		fmt.Fprint(stderr, usage)
		return stage.ExitBadInput
	}
	sub := args[0]
	fs := newFlags("lease "+sub, usage, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	force := fs.Bool("force", false, "break: remove the lease even if its holder looks alive")
	if code, ok := parse(fs, args[1:]); !ok {
		return code
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "lease", err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return fail(stderr, "lease", stage.BadInput(err))
	}
	uri := root.URI(layout.LeaseKey(cfg.Run))
	if sub == "show" {
		o, err := pipeline.ReadLease(ctx, root, cfg.Run)
		if errors.Is(err, store.ErrNotExist) {
			fmt.Fprintf(stdout, "run %s: no lease (%s): no saber run is working on it\n", cfg.Run, uri)
			return stage.ExitOK
		}
		if err != nil {
			return fail(stderr, "lease", err)
		}
		age := o.Age(time.Now())
		state := "live"
		switch {
		case o.Gone():
			state = "STALE: its process is gone from this host"
		case age > pipeline.DefaultLeaseStaleAfter:
			state = fmt.Sprintf("STALE: no heartbeat for over %s", pipeline.DefaultLeaseStaleAfter)
		}
		fmt.Fprintf(stdout, "run %s: leased (%s)\n  holder     %s pid %d, user %s\n  command    %s\n  started    %s\n  heartbeat  %s ago\n  state      %s\n",
			cfg.Run, uri, o.Host, o.PID, o.User, o.Command, o.Started.Format(time.RFC3339), age, state)
		if state != "live" {
			fmt.Fprintf(stdout, "remove it with: saber lease break --config %s\n", *cfgPath)
		}
		return stage.ExitOK
	}
	o, err := pipeline.BreakLease(ctx, root, cfg.Run, 0, *force)
	if err != nil {
		if errors.Is(err, store.ErrNotExist) {
			err = stage.BadInput(err)
		}
		return fail(stderr, "lease break", err)
	}
	fmt.Fprintf(stdout, "run %s: removed the lease of %s (heartbeat %s ago)\n", cfg.Run, o, o.Age(time.Now()))
	return stage.ExitOK
}
