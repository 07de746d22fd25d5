package synth

import (
	"io"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/saber-math/saber/lib/parallel"
)

// writeChunk is the number of rows one worker renders before handing the
// bytes to the writer; big enough to amortise channel traffic, small enough
// that GOMAXPROCS·2 chunks in flight stay a few megabytes.
const writeChunk = 512

// Write emits cfg.N problems as JSONL (one object per line, rows 0..N-1 in
// order). Rows are independent, so chunks are rendered on all CPUs and
// written in order; at most a few chunks are buffered at any time. It stops
// at the first write error and returns it.
func Write(w io.Writer, cfg Config) error {
	n := cfg.N
	if n <= 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		lo, hi int
		out    chan *[]byte
	}
	jobs := make(chan job)
	order := make(chan job, 2*workers)
	done := make(chan struct{})
	// Chunk buffers are recycled through a free list rather than a
	// sync.Pool, which the garbage collector would empty every cycle.
	free := make(chan *[]byte, 2*workers+2)
	getBuf := func() *[]byte {
		select {
		case bp := <-free:
			return bp
		default:
			b := make([]byte, 0, writeChunk*1024)
			return &b
		}
	}
	putBuf := func(bp *[]byte) {
		select {
		case free <- bp:
		default:
		}
	}

	parallel.Go(func() { // dispatch chunks, recording their order
		defer close(jobs)
		defer close(order)
		for lo := 0; lo < n; lo += writeChunk {
			j := job{lo, min(lo+writeChunk, n), make(chan *[]byte, 1)}
			select {
			case order <- j:
			case <-done:
				return
			}
			select {
			case jobs <- j:
			case <-done:
				return
			}
		}
	})
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			for j := range jobs {
				bp := getBuf()
				b := (*bp)[:0]
				for i := j.lo; i < j.hi; i++ {
					b = appendProblem(b, Generate(cfg, i))
				}
				*bp = b
				j.out <- bp // buffered: never blocks
			}
		})
	}
	var err error
	for j := range order {
		bp := <-j.out
		_, err = w.Write(*bp)
		putBuf(bp)
		if err != nil {
			// Stop the dispatcher; workers finish their current chunk
			// into its buffered channel and exit when jobs closes.
			close(done)
			break
		}
	}
	wg.Wait()
	return err
}

// appendProblem appends p as one JSON line, with the fields in the order and
// under the names of Problem's json tags.
func appendProblem(b []byte, p Problem) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, p.ID)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, p.Source)
	b = append(b, `,"domain":`...)
	b = appendJSONString(b, p.Domain)
	b = append(b, `,"template":`...)
	b = appendJSONString(b, p.Template)
	b = append(b, `,"topics":`...)
	if p.Topics == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for k, t := range p.Topics {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"statement":`...)
	b = appendJSONString(b, p.Statement)
	b = append(b, `,"solution":`...)
	b = appendJSONString(b, p.Solution)
	if p.DupOf != "" {
		b = append(b, `,"dup_of":`...)
		b = appendJSONString(b, p.DupOf)
	}
	return append(b, "}\n"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 (possible only
// through a caller's IDPrefix) is replaced by U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
