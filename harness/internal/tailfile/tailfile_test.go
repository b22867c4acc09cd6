package tailfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumes checks when a mark describes a file: the same file grown by appending, or
// unchanged; not one truncated, rewritten at its head or just before the offset, replaced by
// another file at the same path, nor another path.
func TestResumes(t *testing.T) {
	head := strings.Repeat("a line of the session\n", 400) // past FingerprintBytes
	body := head + "the line before the offset\n"
	cases := []struct {
		name   string
		change func(t *testing.T, path string) string
		want   bool
	}{
		{"unchanged", func(t *testing.T, path string) string { return path }, true},
		{"appended", func(t *testing.T, path string) string {
			appendTo(t, path, "a new line\n")
			return path
		}, true},
		{"truncated", func(t *testing.T, path string) string {
			if err := os.Truncate(path, int64(len(body)/2)); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"truncated then grown past the offset", func(t *testing.T, path string) string {
			if err := os.Truncate(path, int64(len(head))); err != nil {
				t.Fatal(err)
			}
			appendTo(t, path, "the line before the offseT\nmore\n")
			return path
		}, false},
		{"rewritten at its head", func(t *testing.T, path string) string {
			overwrite(t, path, 3, "A")
			return path
		}, false},
		{"rewritten just before the offset", func(t *testing.T, path string) string {
			overwrite(t, path, int64(len(body)-3), "X")
			return path
		}, false},
		{"replaced by another file", func(t *testing.T, path string) string {
			tmp := path + ".new"
			write(t, tmp, body)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"another path", func(t *testing.T, path string) string {
			p := filepath.Join(filepath.Dir(path), "other.jsonl")
			write(t, p, body)
			return p
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			write(t, path, body)
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			m, ok := f.Mark(int64(len(body)))
			f.Close()
			if !ok {
				t.Fatal("no mark")
			}
			f, err = Open(c.change(t, path))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got := f.Resumes(m); got != c.want {
				t.Errorf("Resumes = %v, want %v", got, c.want)
			}
		})
	}
}

// TestScanMarks checks where Scan marks: after the last complete line, before a line being
// written, and with the state as it stood before that line.
func TestScanMarks(t *testing.T) {
	for _, tt := range []struct {
		text      string
		max       int
		wantMark  int64
		wantLines int // lines seen when the mark is made
	}{
		{"a\nbb\n", 0, 5, 2},
		{"a\nbb\nccc", 0, 5, 2},
		{"a\n" + strings.Repeat("x", 20) + "\nc\n", 10, 2, 1},
		{"", 0, 0, 0},
	} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		write(t, path, tt.text)
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		lines, marks := 0, 0
		var mark int64 = -1
		err = f.Scan(0, tt.max, func([]byte, bool) { lines++ }, func(off int64) {
			marks++
			mark = off
			if lines != tt.wantLines {
				t.Errorf("%q: marked after %d lines, want %d", tt.text, lines, tt.wantLines)
			}
		})
		f.Close()
		if err != nil || marks != 1 || mark != tt.wantMark {
			t.Errorf("%q: err %v, %d marks, mark %d; want one at %d", tt.text, err, marks, mark, tt.wantMark)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func overwrite(t *testing.T, path string, at int64, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(s), at); err != nil {
		t.Fatal(err)
	}
}
