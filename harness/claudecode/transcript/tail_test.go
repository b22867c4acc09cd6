package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadTailResumes checks when a checkpoint is used: on the same file grown by appending,
// and never on a file that was truncated, rewritten (at its head or just before the
// offset), replaced by another file at the same path, or on another path; nor from a
// checkpoint that is not one.
func TestReadTailResumes(t *testing.T) {
	data, err := os.ReadFile("testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	half := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	edit := func(b []byte, from int) []byte {
		b = bytes.Clone(b)
		i := bytes.IndexAny(b[from:], "0123456789") + from
		b[i] = '0' + (b[i]-'0'+1)%10
		return b
	}
	lastLine := bytes.LastIndexByte(data[:half-1], '\n') + 1
	cases := []struct {
		name   string
		change func(t *testing.T, path string) string
		want   bool
	}{
		{"appended", func(t *testing.T, path string) string {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(data[half:]); err != nil {
				t.Fatal(err)
			}
			return path
		}, true},
		{"unchanged", func(t *testing.T, path string) string { return path }, true},
		{"truncated", func(t *testing.T, path string) string {
			if err := os.Truncate(path, int64(half/2)); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"truncated then grown past the offset", func(t *testing.T, path string) string {
			b := append(edit(data[:half], lastLine), data[half:]...)
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(b); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"rewritten at its head", func(t *testing.T, path string) string {
			if err := writeAt(path, edit(data[:half], 0)); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"rewritten just before the offset", func(t *testing.T, path string) string {
			if err := writeAt(path, edit(data[:half], lastLine)); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"replaced by another file", func(t *testing.T, path string) string {
			tmp := path + ".new"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return path
		}, false},
		{"another path under the same session", func(t *testing.T, path string) string {
			p := filepath.Join(filepath.Dir(path), "agent-x.jsonl")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, data[:half], 0o644); err != nil {
				t.Fatal(err)
			}
			_, ck, resumed, err := readTail(path, nil, nil)
			if err != nil || ck == nil || resumed {
				t.Fatalf("first read: err %v, checkpoint %d bytes, resumed %v", err, len(ck), resumed)
			}
			p := c.change(t, path)
			_, _, resumed, err = readTail(p, ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resumed != c.want {
				t.Errorf("resumed = %v, want %v", resumed, c.want)
			}
		})
	}
	for _, bad := range []string{"", "{", `{"v":99}`, `{"v":1,"calls":[],"pending":[3]}`} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, resumed, err := readTail(path, []byte(bad), nil); err != nil || resumed {
			t.Errorf("checkpoint %q: resumed %v, err %v", bad, resumed, err)
		}
	}
}

func writeAt(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteAt(b, 0)
	return err
}
