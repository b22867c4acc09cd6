package harnesstest

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// Tail is an incremental session reader under test, and what a stop decides on: Tail reads
// the file at path going on from checkpoint and returns what the hook's Turns would be (a
// value compared with reflect.DeepEqual) and the next checkpoint; Whole returns them from
// reading the file whole.
type Tail struct {
	Tail  func(t *testing.T, path string, checkpoint []byte) (turns any, next []byte)
	Whole func(t *testing.T, path string) any
}

// LineEnds returns the offset after each line of data (its line boundaries), and len(data).
func LineEnds(data []byte) []int {
	var out []int
	for i, c := range data {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	if len(out) == 0 || out[len(out)-1] != len(data) {
		out = append(out, len(data))
	}
	return out
}

// CheckIncremental is the incremental reader's property for one session: cut at every line
// boundary, the Turns built by reading on from earlier cut points equal those built from the
// whole prefix. The earlier cut points are every boundary before, random sequences of them
// (seeded by seed), and points inside lines (a stop can come while a line is being written).
func CheckIncremental(t *testing.T, name string, data []byte, seed int64, r Tail) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	ends := LineEnds(data)
	Grow(t, name, data, ends, r)
	for seq := 0; seq < 4; seq++ {
		var cuts []int
		for _, e := range ends {
			if rng.Intn(3) == 0 || e == len(data) {
				cuts = append(cuts, e)
			}
		}
		Grow(t, name, data, cuts, r)
	}
	var cuts []int
	for _, e := range ends {
		if mid := e - 7; mid > 0 && (len(cuts) == 0 || mid > cuts[len(cuts)-1]) {
			cuts = append(cuts, mid)
		}
		if len(cuts) == 0 || e > cuts[len(cuts)-1] {
			cuts = append(cuts, e)
		}
	}
	Grow(t, name, data, cuts, r)
}

// Grow appends data to a file cut by cut (ascending offsets), reading it with r.Tail from the
// previous checkpoint at each, and compares with r.Whole of the prefix.
func Grow(t *testing.T, name string, data []byte, cuts []int, r Tail) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	whole := filepath.Join(dir, "whole.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ck []byte
	at := 0
	for _, cut := range cuts {
		if _, err := f.Write(data[at:cut]); err != nil {
			t.Fatal(err)
		}
		at = cut
		got, next := r.Tail(t, path, ck)
		if next == nil {
			t.Fatalf("%s: cut %d: no checkpoint", name, cut)
		}
		ck = next
		if err := os.WriteFile(whole, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if want := r.Whole(t, whole); !reflect.DeepEqual(got, want) {
			gj, _ := json.MarshalIndent(got, "", " ")
			wj, _ := json.MarshalIndent(want, "", " ")
			t.Fatalf("%s: cut at byte %d: incremental Turn differs\n got: %s\nwant: %s", name, cut, gj, wj)
		}
	}
}

// CheckFingerprint checks that a checkpoint is not used on a file it does not describe:
// data's first half read, then the file truncated, rewritten before the offset (its last
// line, its first line), replaced by another file at the same path (other, then the rest
// of data's first half), or another path under the same session holding other. Each must
// be read whole, which the Turns show. It then checks the case that must use the
// checkpoint: data's second half appended reads as the whole of data does.
func CheckFingerprint(t *testing.T, data, other []byte, r Tail) {
	t.Helper()
	ends := LineEnds(data)
	half := ends[len(ends)/2]
	wholeOf := func(t *testing.T, b []byte) any {
		p := filepath.Join(t.TempDir(), "w.jsonl")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return r.Whole(t, p)
	}
	cases := []struct {
		name   string
		change func(t *testing.T, path string) (string, []byte) // the path to read, and its content
	}{
		{"truncated", func(t *testing.T, path string) (string, []byte) {
			b := data[:ends[len(ends)/4]]
			if err := os.Truncate(path, int64(len(b))); err != nil {
				t.Fatal(err)
			}
			return path, b
		}},
		{"rewritten: its last line before the offset", func(t *testing.T, path string) (string, []byte) {
			b := bytes.Clone(data[:half])
			last := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
			rewrite(t, path, b, last)
			return path, b
		}},
		{"rewritten: its first line", func(t *testing.T, path string) (string, []byte) {
			b := bytes.Clone(data[:half])
			rewrite(t, path, b, 0)
			return path, b
		}},
		{"replaced by another file", func(t *testing.T, path string) (string, []byte) {
			b := bytes.Clone(other)
			if len(other) < half {
				b = append(b, data[len(other):half]...)
			}
			tmp := path + ".new"
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return path, b
		}},
		{"another path", func(t *testing.T, path string) (string, []byte) {
			p := filepath.Join(filepath.Dir(path), "other.jsonl")
			if err := os.WriteFile(p, other, 0o644); err != nil {
				t.Fatal(err)
			}
			return p, other
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, data[:half], 0o644); err != nil {
				t.Fatal(err)
			}
			_, ck := r.Tail(t, path, nil)
			if ck == nil {
				t.Fatal("first read: no checkpoint")
			}
			p, content := c.change(t, path)
			got, _ := r.Tail(t, p, ck)
			if want := wholeOf(t, content); !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Errorf("the checkpoint was used on a changed file:\n got %s\nwant %s", gj, wj)
			}
		})
	}
	t.Run("appended", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data[:half], 0o644); err != nil {
			t.Fatal(err)
		}
		_, ck := r.Tail(t, path, nil)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data[half:]); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, _ := r.Tail(t, path, ck)
		if want := wholeOf(t, data); !reflect.DeepEqual(got, want) {
			t.Errorf("appended read differs from the whole read")
		}
	})
}

// rewrite changes b in place from offset on (a digit, the same length) and writes it over
// path.
func rewrite(t *testing.T, path string, b []byte, from int) {
	t.Helper()
	i := bytes.IndexAny(b[from:], "0123456789")
	if i < 0 {
		t.Fatal("nothing to rewrite")
	}
	i += from
	b[i] = '0' + (b[i]-'0'+1)%10
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
}

// CheckBadCheckpoints checks that a checkpoint that is not one (not JSON, another version,
// cut short, null) reads the file whole, and that one whose numbers were changed (every
// number in turn, to a large and a negative value) neither fails nor panics: a state file is
// stopgate's own, but a hook must never be wedged by one.
func CheckBadCheckpoints(t *testing.T, data []byte, r Tail) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	ends := LineEnds(data)
	if err := os.WriteFile(path, data[:ends[len(ends)/2]], 0o644); err != nil {
		t.Fatal(err)
	}
	_, ck := r.Tail(t, path, nil)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := r.Whole(t, path)
	for _, bad := range [][]byte{
		[]byte("not json"), []byte("null"), []byte(`{"v":99}`), []byte(`[]`), ck[:len(ck)/2],
		bytes.Replace(ck, []byte(`"v":1`), []byte(`"v":2`), 1),
	} {
		if got, _ := r.Tail(t, path, bad); !reflect.DeepEqual(got, want) {
			t.Errorf("checkpoint %.40q: not read whole", bad)
		}
	}
	nums := regexp.MustCompile(`:-?[0-9]+`).FindAllIndex(ck, -1)
	step := max(1, len(nums)/60)
	for i := 0; i < len(nums); i += step {
		for _, v := range []string{":99999", ":-3"} {
			m := append(append(bytes.Clone(ck[:nums[i][0]]), v...), ck[nums[i][1]:]...)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("checkpoint with %s for %s: panic %v", v, ck[nums[i][0]:nums[i][1]], p)
					}
				}()
				r.Tail(t, path, m)
			}()
		}
	}
}

// BenchTail measures an incremental reader on data: "first", a read with no checkpoint (the
// whole file), and "next", a read from the checkpoint of data after one more line (line)
// was appended, as a stop after the first reads. tail reads path from checkpoint and returns
// the next checkpoint.
func BenchTail(b *testing.B, data, line []byte, tail func(path string, checkpoint []byte) []byte) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	ck := tail(path, nil)
	if ck == nil {
		b.Fatal("no checkpoint")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Write(line); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.Run("first", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			tail(path, nil)
		}
	})
	b.Run("next", func(b *testing.B) {
		for b.Loop() {
			tail(path, ck)
		}
		b.ReportMetric(float64(len(ck)), "checkpoint-bytes")
	})
}
