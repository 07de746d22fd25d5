package stage

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Progress reports long work: on a TTY a bar redrawn in place, otherwise a
// log line (done/total, rate, ETA) every interval, so batch logs stay
// readable and still show a stalled shard.
type Progress struct {
	mu       sync.Mutex
	what     string
	total    int64
	done     int64
	start    time.Time
	last     time.Time
	interval time.Duration
	log      zerolog.Logger
	bar      io.Writer // nil unless on a TTY
}

func newProgress(log zerolog.Logger, what string, total int64, interval time.Duration, bar io.Writer) *Progress {
	now := time.Now()
	return &Progress{what: what, total: total, start: now, last: now, interval: interval, log: log, bar: bar}
}

// Add records n more units done.
func (p *Progress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	now := time.Now()
	switch {
	case p.bar != nil && now.Sub(p.last) >= 100*time.Millisecond:
		p.last = now
		p.draw(now)
	case p.bar == nil && p.interval > 0 && now.Sub(p.last) >= p.interval:
		p.last = now
		p.line(now, "progress")
	}
}

// Done is how many units are done so far.
func (p *Progress) Done() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Finish logs the final count and rate.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.bar != nil {
		p.draw(now)
		fmt.Fprintln(p.bar)
	}
	p.line(now, "done")
}

func (p *Progress) rate(now time.Time) float64 {
	el := now.Sub(p.start).Seconds()
	if el <= 0 {
		return 0
	}
	return float64(p.done) / el
}

func (p *Progress) eta(now time.Time) time.Duration {
	r := p.rate(now)
	if r <= 0 || p.total <= p.done {
		return 0
	}
	return time.Duration(float64(p.total-p.done) / r * float64(time.Second)).Round(time.Second)
}

func (p *Progress) line(now time.Time, msg string) {
	ev := p.log.Info().Str("what", p.what).Int64("done", p.done).Int64("total", p.total).
		Float64("rate_per_s", float64(int64(p.rate(now)*10))/10).
		Str("elapsed", now.Sub(p.start).Round(time.Millisecond).String())
	if msg == "progress" {
		ev = ev.Str("eta", p.eta(now).String())
	}
	ev.Msg(p.what + " " + msg)
}

func (p *Progress) draw(now time.Time) {
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = min(1, float64(p.done)/float64(p.total))
	}
	n := int(frac * width)
	fmt.Fprintf(p.bar, "\r%-12s [%s%s] %5.1f%% %d/%d %.0f/s ETA %s   ",
		p.what, strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac,
		p.done, p.total, p.rate(now), p.eta(now))
}
