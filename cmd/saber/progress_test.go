package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRunProgressLine: the progress line follows the executor's lines,
// counts the shards done and extrapolates the ETA from the mean so far.
func TestRunProgressLine(t *testing.T) {
	var buf bytes.Buffer
	t0 := time.Unix(0, 0)
	now := t0
	p := &runProgress{w: &buf, total: 4, start: t0, now: func() time.Time { return now }}
	p.Write([]byte("tag map: 4 of 4 shards to run\n"))
	if !strings.HasSuffix(buf.String(), "[0/4 shards, 0s, ETA …]") {
		t.Errorf("before any shard: %q", buf.String())
	}
	now = t0.Add(30 * time.Second)
	p.Write([]byte("  done  tag map 0/4 in 30s\n"))
	if !strings.HasSuffix(buf.String(), "\r\033[K  done  tag map 0/4 in 30s\n[1/4 shards, 30s, ETA 1m30s]") {
		t.Errorf("after one shard: %q", buf.String())
	}
}
