package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// isJSONArray reports whether the stream in br, past a UTF-8 byte-order
// mark and white space, opens with '[': one JSON array of rows rather than
// JSON lines. It only peeks, so a JSONL stream is read from its first byte
// and keeps its line numbers; white space beyond the read-ahead reads as
// JSONL (whose reader then skips it as blank lines).
func isJSONArray(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Size()) // short at the end of the stream; the error is the next read's
	b = bytes.TrimLeft(bytes.TrimPrefix(b, utf8BOM), " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// arrayReader splits one JSON array into the raw bytes of its elements, in
// memory bounded by max as lineReader bounds a line: an element longer
// than max comes back as its first max bytes with its full size, and the
// rest is skipped as it streams past. json.Decoder would buffer each
// element whole before it could be rejected, and could not go on after
// one. Only the array's own structure (brackets, commas, strings) is
// checked here; each element is then judged as a JSONL line is.
type arrayReader struct {
	ctx   context.Context
	br    *bufio.Reader
	max   int
	buf   []byte
	n     int64 // elements read
	off   int64 // bytes read, for messages
	state int   // 0: before '[', 1: in the array, 2: after ']'
}

func newArrayReader(ctx context.Context, br *bufio.Reader, max int) *arrayReader {
	return &arrayReader{ctx: ctx, br: br, max: max}
}

// errArray is damage to the array itself: no row after it can be placed.
type errArray struct {
	off  int64
	what string
}

func (e errArray) Error() string { return fmt.Sprintf("at byte %d: %s", e.off, e.what) }

func (a *arrayReader) readByte() (byte, error) {
	c, err := a.br.ReadByte()
	if err == nil {
		a.off++
		if a.off%(1<<20) == 0 {
			if cerr := a.ctx.Err(); cerr != nil {
				return 0, cerr
			}
		}
	}
	return c, err
}

// skipSpace reads past white space and returns the next byte.
func (a *arrayReader) skipSpace() (byte, error) {
	for {
		c, err := a.readByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c, nil
	}
}

func (a *arrayReader) keep(c byte, size *int64) {
	*size++
	if len(a.buf) < a.max {
		a.buf = append(a.buf, c)
	}
}

// next returns the next element — at most max bytes of it, valid until the
// next call — and its full size; io.EOF after the closing bracket when
// nothing but white space follows it.
func (a *arrayReader) next() (elem []byte, size int64, err error) {
	eof := func(err error, what string) error {
		if errors.Is(err, io.EOF) {
			return errArray{a.off, what}
		}
		return err
	}
	switch a.state {
	case 0:
		if p, _ := a.br.Peek(len(utf8BOM)); bytes.Equal(p, utf8BOM) {
			a.br.Discard(len(utf8BOM))
			a.off += int64(len(utf8BOM))
		}
		if c, err := a.skipSpace(); err != nil || c != '[' {
			return nil, 0, eof(err, "not a JSON array (no opening '[')")
		}
		a.state = 1
		c, err := a.skipSpace()
		if err != nil {
			return nil, 0, eof(err, "the array ends before its closing ']' (truncated file?)")
		}
		if c == ']' {
			return nil, 0, a.end()
		}
		a.br.UnreadByte()
		a.off--
	case 1:
		c, err := a.skipSpace()
		if err != nil {
			return nil, 0, eof(err, fmt.Sprintf("the array ends after element %d without its closing ']' (truncated file?)", a.n))
		}
		if c == ']' {
			return nil, 0, a.end()
		}
		if c != ',' {
			return nil, 0, errArray{a.off, fmt.Sprintf("%q after element %d, want ',' or ']'", c, a.n)}
		}
	case 2:
		return nil, 0, io.EOF
	}
	c, err := a.skipSpace()
	if err != nil {
		return nil, 0, eof(err, fmt.Sprintf("the array ends after element %d without its closing ']' (truncated file?)", a.n))
	}
	if c == ']' || c == ',' {
		return nil, 0, errArray{a.off, fmt.Sprintf("%q where element %d should be (a trailing or doubled comma?)", c, a.n+1)}
	}
	a.n++
	a.buf = a.buf[:0]
	a.keep(c, &size)
	truncated := fmt.Sprintf("the file ends inside element %d (truncated file?)", a.n)
	switch c {
	case '"', '{', '[':
		depth, inStr, esc := 0, c == '"', false
		if !inStr {
			depth = 1
		}
		for inStr || depth > 0 {
			c, err := a.readByte()
			if err != nil {
				return nil, 0, eof(err, truncated)
			}
			a.keep(c, &size)
			switch {
			case esc:
				esc = false
			case inStr:
				esc = c == '\\'
				inStr = c != '"'
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			}
		}
	default: // a number, true, false or null: up to the next delimiter
		for {
			c, err := a.readByte()
			if err != nil {
				return nil, 0, eof(err, truncated)
			}
			if c == ',' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				a.br.UnreadByte()
				a.off--
				break
			}
			a.keep(c, &size)
		}
	}
	return a.buf, size, nil
}

// end closes the array: only white space may follow it.
func (a *arrayReader) end() error {
	a.state = 2
	c, err := a.skipSpace()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		return err
	}
	return errArray{a.off, fmt.Sprintf("%q after the array's closing ']'; a file holds one array", c)}
}
