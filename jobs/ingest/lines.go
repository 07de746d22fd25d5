package ingest

import (
	"bufio"
	"context"
	"errors"
	"io"
)

// lineReader reads the lines of a JSONL stream in memory bounded by max: a
// line longer than max bytes comes back as its first max bytes with its
// full size, and the rest of it is skipped as it streams past. A hostile or
// broken file (a 2 GB line in a 2 MB .gz) therefore costs one oversize
// reject, not the memory of the line: bufio.Reader.ReadBytes would hold the
// whole line, and grow it by copying, before the row could be rejected.
type lineReader struct {
	ctx context.Context
	br  *bufio.Reader
	max int
	buf []byte
}

// readBuffer is the read-ahead of a JSONL stream; lines longer than it are
// assembled from its fragments.
const readBuffer = 256 << 10

func newLineReader(ctx context.Context, r io.Reader, max int) *lineReader {
	return &lineReader{ctx: ctx, br: bufio.NewReaderSize(r, readBuffer), max: max}
}

// next returns the next line without its '\n' — at most max bytes of it,
// valid until the next call — and its full size in bytes. At the end of
// the stream it returns io.EOF (a last line without '\n' is still a line);
// any other error is the stream's.
func (l *lineReader) next() (line []byte, size int64, err error) {
	l.buf = l.buf[:0]
	for frags := 0; ; frags++ {
		// A line of gigabytes takes seconds to skip: stay interruptible.
		if frags%64 == 63 {
			if err := l.ctx.Err(); err != nil {
				return nil, size, err
			}
		}
		frag, rerr := l.br.ReadSlice('\n')
		if frags == 0 && rerr == nil && len(frag) <= l.max {
			// The whole line lies in the read buffer: hand it over
			// there, valid until the next read, without copying it.
			return frag[:len(frag)-1], int64(len(frag) - 1), nil
		}
		end := rerr == nil
		if end {
			frag = frag[:len(frag)-1]
		}
		size += int64(len(frag))
		if room := l.max - len(l.buf); room > 0 {
			l.buf = append(l.buf, frag[:min(len(frag), room)]...)
		}
		switch {
		case end:
			return l.buf, size, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF) && size > 0:
			return l.buf, size, nil
		default:
			return nil, size, rerr
		}
	}
}
