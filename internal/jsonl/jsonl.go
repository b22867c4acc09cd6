// Package jsonl is stopgate's one line scanner: it reads input line by line, as JSON Lines
// readers need, with no bound of its own on a line's length but the one the caller sets.
// Every reader of line-oriented input (the session readers, the CLI's JSON Lines commands)
// uses it.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// bufSize is the read buffer: lines shorter than it are handed out without a copy.
const bufSize = 64 << 10

// Scanner reads lines. A line longer than the read buffer is assembled in one reused buffer
// up to the limit; a longer one is consumed and reported by TooLong, its bytes discarded.
// Unlike bufio.Scanner it never stops on a long line, and it can hand the unread rest of the
// input to another reader (Rest).
type Scanner struct {
	br      *bufio.Reader
	max     int
	long    []byte
	line    []byte
	tooLong bool
	err     error
	done    bool
}

// NewScanner returns a Scanner of r whose lines may hold at most max bytes, not counting the
// line's end (LF or CRLF). max <= 0 means no limit.
func NewScanner(r io.Reader, max int) *Scanner {
	return &Scanner{br: bufio.NewReaderSize(r, bufSize), max: max}
}

// Scan advances to the next line and reports whether there is one. Empty input, and the
// empty remainder after a final newline, yield no line. After it returns false, Err says
// whether the input failed.
func (s *Scanner) Scan() bool {
	if s.done {
		return false
	}
	s.long, s.tooLong, s.line = s.long[:0], false, nil
	for {
		chunk, err := s.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Not yet the line's end; what is read so far may end in the CR of a CRLF.
			if !s.tooLong {
				if s.max > 0 && len(s.long)+len(chunk) > s.max+1 {
					s.tooLong, s.long = true, s.long[:0]
				} else {
					s.long = append(s.long, chunk...)
				}
			}
			continue
		}
		line := chunk
		if !s.tooLong && len(s.long) > 0 {
			s.long = append(s.long, chunk...)
			line = s.long
		}
		if !s.tooLong && s.max > 0 && len(trimEnd(line)) > s.max {
			s.tooLong = true
		}
		if s.tooLong {
			line = nil
		}
		if err != nil {
			s.done = true
			if err != io.EOF {
				s.err = err
			}
			if len(line) == 0 && !s.tooLong {
				return false
			}
		}
		s.line = line
		return true
	}
}

// trimEnd returns line without its line end (LF or CRLF).
func trimEnd(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// Line returns the current line with its line end kept; nil for a line that was TooLong. It
// is valid until the next call of Scan.
func (s *Scanner) Line() []byte { return s.line }

// TooLong reports that the current line was longer than the limit, and skipped.
func (s *Scanner) TooLong() bool { return s.tooLong }

// Err returns the first error of the input other than io.EOF.
func (s *Scanner) Err() error { return s.err }

// Rest returns the input not yet scanned, for handing the remainder of a stream to another
// reader (a multi-line JSON document after its first line).
func (s *Scanner) Rest() io.Reader { return s.br }
