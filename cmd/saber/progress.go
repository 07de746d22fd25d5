package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// runProgress is `saber run`'s whole-run progress line on a terminal: the
// executor's lines scroll above it, and it is redrawn below them after
// each, with the shards done of those to run and an ETA from the mean
// time per shard so far (shards of one step cost alike; a step of larger
// shards moves the ETA when it starts).
type runProgress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	done  int
	start time.Time
	now   func() time.Time
}

// withProgress wraps out with the progress line when out is a terminal
// and there is something to run; otherwise it returns out.
func withProgress(out io.Writer, total int) (io.Writer, func()) {
	f, ok := out.(*os.File)
	if !ok || total == 0 || !term.IsTerminal(int(f.Fd())) {
		return out, func() {}
	}
	p := &runProgress{w: out, total: total, start: time.Now(), now: time.Now}
	return p, p.clear
}

func (p *runProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += bytes.Count(b, []byte("\n  done  "))
	if bytes.HasPrefix(b, []byte("  done  ")) {
		p.done++
	}
	if _, err := io.WriteString(p.w, "\r\033[K"); err != nil {
		return 0, err
	}
	n, err := p.w.Write(b)
	if err != nil {
		return n, err
	}
	_, err = io.WriteString(p.w, p.line())
	return n, err
}

// line is "[12/40 shards, 2m10s, ETA 7m15s]".
func (p *runProgress) line() string {
	el := p.now().Sub(p.start).Round(time.Second)
	eta := "…"
	if p.done > 0 && p.done <= p.total {
		eta = (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%d/%d shards, %s, ETA %s]", p.done, p.total, el, eta)
}

func (p *runProgress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, "\r\033[K")
}
