package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type line struct {
	text    string
	tooLong bool
}

func scanAll(t *testing.T, in string, max int) ([]line, error) {
	t.Helper()
	s := NewScanner(strings.NewReader(in), max)
	var out []line
	for s.Scan() {
		out = append(out, line{string(s.Line()), s.TooLong()})
	}
	return out, s.Err()
}

// TestScanner checks lines, their ends kept, and the limit, which does not count the line's
// end, across the read buffer's size.
func TestScanner(t *testing.T) {
	big := strings.Repeat("x", 3*bufSize)
	tests := []struct {
		name string
		in   string
		max  int
		want []line
	}{
		{"empty", "", 0, nil},
		{"one newline", "\n", 0, []line{{"\n", false}}},
		{"no final newline", "a\nb", 0, []line{{"a\n", false}, {"b", false}}},
		{"CRLF kept", "a\r\nb\r\n", 0, []line{{"a\r\n", false}, {"b\r\n", false}}},
		{"at the limit", "abc\nabcd\n", 3, []line{{"abc\n", false}, {"", true}}},
		{"CRLF at the limit", "abc\r\n", 3, []line{{"abc\r\n", false}}},
		{"a long line is assembled", big + "\nz\n", 0, []line{{big + "\n", false}, {"z\n", false}}},
		{"a long line at the limit", big + "\r\nz", len(big), []line{{big + "\r\n", false}, {"z", false}}},
		{"a long line over the limit, then more", big + "\nz\n", len(big) - 1, []line{{"", true}, {"z\n", false}}},
		{"a long line over the limit at the end", "a\n" + big, bufSize, []line{{"a\n", false}, {"", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanAll(t, tt.in, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d lines, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d: %.20q (too long %v), want %.20q (%v)", i, got[i].text, got[i].tooLong, tt.want[i].text, tt.want[i].tooLong)
				}
			}
		})
	}
}

type failing struct{ r io.Reader }

var errBoom = errors.New("boom")

func (f failing) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errBoom
	}
	return n, err
}

// TestScannerError checks that the input's error ends the scan, after the lines read.
func TestScannerError(t *testing.T) {
	s := NewScanner(failing{strings.NewReader("a\nb")}, 0)
	var got []string
	for s.Scan() {
		got = append(got, string(s.Line()))
	}
	if len(got) != 2 || got[1] != "b" || !errors.Is(s.Err(), errBoom) {
		t.Errorf("lines %q, err %v", got, s.Err())
	}
}

// TestRest checks that the unread input is handed on whole.
func TestRest(t *testing.T) {
	s := NewScanner(strings.NewReader("{\n\"a\": 1\n}\n"), 0)
	if !s.Scan() || string(s.Line()) != "{\n" {
		t.Fatalf("first line %q", s.Line())
	}
	rest, err := io.ReadAll(s.Rest())
	if err != nil || string(rest) != "\"a\": 1\n}\n" {
		t.Errorf("rest %q, %v", rest, err)
	}
}

func FuzzScanner(f *testing.F) {
	f.Add("a\nb\r\n\n", 2)
	f.Fuzz(func(t *testing.T, in string, max int) {
		max %= 64
		s := NewScanner(strings.NewReader(in), max)
		var b strings.Builder
		for s.Scan() {
			if s.TooLong() {
				if s.Line() != nil {
					t.Fatal("a too-long line has bytes")
				}
				continue
			}
			if max > 0 && len(trimEnd(s.Line())) > max {
				t.Fatalf("line %q over %d", s.Line(), max)
			}
			b.Write(s.Line())
		}
		if max <= 0 && b.String() != in {
			t.Fatalf("lines %q do not make up the input %q", b.String(), in)
		}
	})
}
