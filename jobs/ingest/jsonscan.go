package ingest

import "encoding/binary"

// A row's line used to be read three times before its fields were text:
// json.Valid, a second scan splitting the object into members, and for
// each string a UTF-8 check, a search for escapes and a search for \u
// escapes. That was over half of parsing a row, and parsing a third of an
// ingest map shard. scanRow does the first two in one pass and notes, per
// string value, what the later checks would find, so that a plain string
// becomes text with no further scan.
//
// scanRow accepts exactly what json.Valid accepts (TestScanRowAgreesWithValid
// and FuzzScanRow hold it to that), so a line it refuses goes to the slow
// path that explains why, and a line it takes is one encoding/json takes.

// String flags, set for string values.
const (
	fString   uint8 = 1 << iota // the value is a JSON string
	fEscape                     // it holds a backslash escape
	fUEscape                    // it holds a \u escape (a surrogate may be alone)
	fNonASCII                   // it holds bytes ≥ 0x80 (UTF-8 must be checked)
)

// maxNesting is encoding/json's limit on nested arrays and objects: deeper
// is not valid JSON to json.Valid, so not here either.
const maxNesting = 10000

// member is one member of an object, raw: its key and value as written.
type member struct {
	key, val []byte
	flags    uint8 // of val, when a string
}

// plain reports that the member's value is a string whose text is its
// bytes between the quotes: no escapes and ASCII only.
func (m member) plain() bool { return m.flags&(fString|fEscape|fNonASCII) == fString }

// byteClass sorts the bytes a string scan must stop at.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = clControl
	}
	t['"'] = clQuote
	t['\\'] = clBackslash
	for c := 0x80; c < 0x100; c++ {
		t[c] = clHigh
	}
	return t
}()

const (
	clPlain uint8 = iota
	clQuote
	clBackslash
	clControl
	clHigh
)

type rowScanner struct {
	b     []byte
	i     int
	depth int
}

// scanRow validates b as json.Valid does and, when b is an object, appends
// its top-level members to out in order. ok is json.Valid(b).
func scanRow(b []byte, out []member) (members []member, ok bool) {
	s := rowScanner{b: b}
	s.space()
	if s.i < len(b) && b[s.i] == '{' {
		out, ok = s.object(out, true)
	} else {
		ok = s.value()
	}
	if !ok {
		return out, false
	}
	s.space()
	return out, s.i == len(b)
}

func (s *rowScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at s.i (white space first).
func (s *rowScanner) value() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		_, ok := s.object(nil, false)
		return ok
	case c == '[':
		return s.array()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

// str scans the string at s.i, returning its flags.
func (s *rowScanner) str() (uint8, bool) {
	b := s.b
	flags := fString
	for i := s.i + 1; i < len(b); {
		// Eight plain bytes at a time: most of a row is the text of its
		// statement and solution, and this loop was its largest cost.
		for i+8 <= len(b) && !stringStop(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch byteClass[b[i]] {
		case clPlain:
			i++
		case clQuote:
			s.i = i + 1
			return flags, true
		case clBackslash:
			if i+1 >= len(b) {
				return 0, false
			}
			flags |= fEscape
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false
				}
				flags |= fUEscape
				i += 6
			default:
				return 0, false
			}
		case clControl:
			return 0, false
		case clHigh:
			flags |= fNonASCII
			i++
		}
	}
	return 0, false
}

// Word-at-a-time byte tests (SWAR) on eight bytes read little-endian.
// Each is exact as a yes/no answer: zero when no byte qualifies. (Which
// byte qualifies they do not say exactly; the byte loops find it.)
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// swarZero reports a zero byte in x.
func swarZero(x uint64) uint64 { return (x - swarLo) & ^x & swarHi }

// swarLess reports a byte below n (n ≤ 128) in x.
func swarLess(x uint64, n byte) uint64 { return (x - swarLo*uint64(n)) & ^x & swarHi }

// stringStop reports a byte a string scan must stop at in x: a quote, a
// backslash, a control character or a byte ≥ 0x80 (byteClass not plain).
func stringStop(x uint64) bool {
	return (swarLess(x, 0x20) | swarZero(x^(swarLo*'"')) | swarZero(x^(swarLo*'\\')) | x&swarHi) != 0
}

// asciiStop reports a byte controlChar must look at in x: below 0x20, DEL
// or ≥ 0x80.
func asciiStop(x uint64) bool {
	return (swarLess(x, 0x20) | swarZero(x^(swarLo*0x7f)) | x&swarHi) != 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *rowScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; what may
// follow it is the caller's to check.
func (s *rowScanner) number() bool {
	b, i := s.b, s.i
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

func (s *rowScanner) array() bool {
	if s.depth++; s.depth > maxNesting {
		return false
	}
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// object scans the object at s.i; with keep, it appends its members to out.
func (s *rowScanner) object(out []member, keep bool) ([]member, bool) {
	if s.depth++; s.depth > maxNesting {
		return out, false
	}
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return out, true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return out, false
		}
		k := s.i
		if _, ok := s.str(); !ok {
			return out, false
		}
		key := s.b[k:s.i]
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return out, false
		}
		s.i++
		s.space()
		v := s.i
		var flags uint8
		if s.i < len(s.b) && s.b[s.i] == '"' {
			f, ok := s.str()
			if !ok {
				return out, false
			}
			flags = f
		} else if !s.value() {
			return out, false
		}
		if keep {
			out = append(out, member{key: key, val: s.b[v:s.i], flags: flags})
		}
		s.space()
		if s.i >= len(s.b) {
			return out, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			s.depth--
			return out, true
		default:
			return out, false
		}
	}
}
