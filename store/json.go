package store

import "encoding/binary"

// maxNesting is the deepest nesting of arrays and objects validJSON accepts: encoding/json's.
const maxNesting = 10000

// validJSON reports whether b is one JSON value, with white space around it allowed: exactly
// what encoding/json.Valid reports (RFC 8259 syntax; string contents need not be valid UTF-8;
// arrays and objects nest at most 10,000 deep), which a test checks on every input a fuzzer
// finds. It is several times faster, and Append runs it on every payload: it walks the
// value in one pass without encoding/json's per-byte state functions, and skips through
// strings, where most of a payload's bytes are, eight bytes at a time.
func validJSON(b []byte) bool {
	// Bit d of kinds says whether the container at depth d is an object (1) or an array (0).
	// One word holds the first 64 levels, which is as deep as payloads go; deeper ones spill.
	var (
		kinds uint64
		deep  []uint64
	)
	depth := 0
	i := 0
	for {
		// A value starts at b[i], after any white space.
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == maxNesting {
				return false
			}
			if depth%64 == 0 && depth > 0 {
				deep = append(deep, kinds)
			}
			kinds <<= 1
			if c == '{' {
				kinds |= 1
			}
			depth++
			if i = skipSpace(b, i+1); i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				depth, kinds, deep = closeContainer(depth, kinds, deep)
				break
			}
			if c == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			continue
		case '"':
			if i = endOfString(b, i+1); i < 0 {
				return false
			}
		case 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = endOfNumber(b, i); i < 0 {
				return false
			}
		}
		// A value ended at b[i]: close the containers it ends, or go on to the next element.
		for {
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			object := kinds&1 != 0
			c := b[i]
			if c == ',' {
				i++
				if object {
					if i = member(b, skipSpace(b, i)); i < 0 {
						return false
					}
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				i++
				depth, kinds, deep = closeContainer(depth, kinds, deep)
				continue
			}
			return false
		}
	}
}

// closeContainer pops the innermost container off validJSON's stack.
func closeContainer(depth int, kinds uint64, deep []uint64) (int, uint64, []uint64) {
	depth--
	kinds >>= 1
	if depth%64 == 0 && depth > 0 {
		kinds, deep = deep[len(deep)-1], deep[:len(deep)-1]
	}
	return depth, kinds, deep
}

// skipSpace returns the index of the first byte at or after i that is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// member checks the key and colon of an object member starting at b[i] and returns the index
// after the colon, or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = endOfString(b, i+1); i < 0 {
		return -1
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// literal checks that b holds lit at i and returns the index after it, or -1.
func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// Eight copies of a byte, for testing eight bytes at once.
const (
	ones    = 0x0101010101010101
	highs   = 0x8080808080808080
	quotes  = '"' * ones
	slashes = '\\' * ones
)

// plainString is the bytes that stand for themselves in a JSON string: all but the quote, the
// backslash and the control characters below U+0020.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// endOfString checks the rest of a string whose opening quote is at b[i-1] and returns the
// index after its closing quote, or -1.
func endOfString(b []byte, i int) int {
	for {
		// Eight plain bytes at a time: none below 0x20, none a quote or a backslash. The
		// expressions are the classic "has a zero byte" and "has a byte less than n" tests.
		for len(b)-i >= 8 {
			v := binary.LittleEndian.Uint64(b[i:])
			q, s := v^quotes, v^slashes
			if ((q-ones)&^q|(s-ones)&^s|(v-0x20*ones)&^v)&highs != 0 {
				break
			}
			i += 8
		}
		for i < len(b) && plainString[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// endOfNumber checks a number starting at b[i] and returns the index after it, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func endOfNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// digits returns the index of the first byte at or after i that is not a decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
