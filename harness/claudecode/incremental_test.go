package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/stopgate/stopgate/internal/dataset"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/hook"
)

// goldenSessions are the sessions the incremental property is checked on: the handwritten
// ones at every line boundary, the real ones (larger) at a sample of boundaries.
func goldenSessions(t *testing.T) (every, sampled []string) {
	t.Helper()
	for _, pat := range []string{"transcript/testdata/handwritten/*.jsonl", "transcript/testdata/handwritten/v2_0/*.jsonl", "transcript/testdata/claude-code/*.jsonl"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		every = append(every, m...)
	}
	m, _ := filepath.Glob(filepath.Join(dataset.Sample(t, dataset.SpotterDir), "*.jsonl"))
	sampled = append(sampled, m...)
	if len(every) < 5 {
		t.Fatalf("golden sessions missing: %v", every)
	}
	return every, sampled
}

// lineEnds returns the offset after each line of data (its line boundaries), and len(data).
func lineEnds(data []byte) []int {
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

// turnsAt returns the Turns a stop would be decided on with the transcript s: with and
// without last_assistant_message.
func turnsAt(s *transcript.Session) [2]stopgate.Turn {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	msg := "All done."
	return [2]stopgate.Turn{
		Turn(Payload{HookEventName: EventStop}, s, now),
		Turn(Payload{HookEventName: EventStop, LastAssistantMessage: &msg}, s, now),
	}
}

// checkIncremental grows a copy of data through cuts (ascending offsets), reading it with
// ReadTail from the previous checkpoint at each, and compares the Turn with the one from
// reading the prefix whole.
func checkIncremental(t *testing.T, name string, data []byte, cuts []int) {
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
		got, next, err := transcript.ReadTail(path, ck, nil)
		if err != nil {
			t.Fatal(err)
		}
		if next == nil {
			t.Fatalf("%s: cut %d: no checkpoint", name, cut)
		}
		ck = next
		if err := os.WriteFile(whole, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := transcript.ReadFile(whole, nil)
		if err != nil {
			t.Fatal(err)
		}
		g, w := turnsAt(got), turnsAt(want)
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.MarshalIndent(g, "", " ")
			wj, _ := json.MarshalIndent(w, "", " ")
			t.Fatalf("%s: cut at byte %d: incremental Turn differs\n got: %s\nwant: %s", name, cut, gj, wj)
		}
	}
}

// TestReadTailEqualsWholeRead is the incremental reader's property: for every golden session,
// cut at every line boundary, the Turn built from ReadTail going on from earlier cut points
// equals the Turn built from the whole prefix. The earlier cut points are every boundary
// before, and random sequences of them (fixed seed); cuts inside a line are included, since
// a stop can come while a line is being written.
func TestReadTailEqualsWholeRead(t *testing.T) {
	every, sampled := goldenSessions(t)
	rng := rand.New(rand.NewSource(16))
	for _, path := range every {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ends := lineEnds(data)
		name := filepath.Base(path)
		checkIncremental(t, name, data, ends) // every boundary, one after the other
		for seq := 0; seq < 4; seq++ {
			var cuts []int
			for _, e := range ends {
				if rng.Intn(3) == 0 || e == len(data) {
					cuts = append(cuts, e)
				}
			}
			checkIncremental(t, name, data, cuts)
		}
		// Through the middle of lines.
		var cuts []int
		for _, e := range ends {
			if mid := e - 7; mid > 0 && (len(cuts) == 0 || mid > cuts[len(cuts)-1]) {
				cuts = append(cuts, mid)
			}
			if len(cuts) == 0 || e > cuts[len(cuts)-1] {
				cuts = append(cuts, e)
			}
		}
		checkIncremental(t, name, data, cuts)
	}
	if testing.Short() {
		return
	}
	for _, path := range sampled {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ends := lineEnds(data)
		var cuts []int
		for i, e := range ends {
			if rng.Intn(len(ends)/25+1) == 0 || i == len(ends)-1 {
				cuts = append(cuts, e)
			}
		}
		checkIncremental(t, filepath.Base(path), data, cuts)
	}
}

// TestReadTailFingerprint checks that a checkpoint is not used on a file it does not
// describe: truncated, rewritten before the offset, replaced by another file at the same
// path, or another path under the same session. Each is read whole, which the Turn shows.
func TestReadTailFingerprint(t *testing.T) {
	data, err := os.ReadFile("transcript/testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ends := lineEnds(data)
	half := ends[len(ends)/2]
	other, err := os.ReadFile("transcript/testdata/claude-code/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	wholeTurn := func(t *testing.T, b []byte) [2]stopgate.Turn {
		p := filepath.Join(t.TempDir(), "w.jsonl")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := transcript.ReadFile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return turnsAt(s)
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
			b := append(bytes.Clone(other), data[len(other):half]...)
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
			_, ck, err := transcript.ReadTail(path, nil, nil)
			if err != nil || ck == nil {
				t.Fatalf("first read: %v, checkpoint %d bytes", err, len(ck))
			}
			p, content := c.change(t, path)
			got, _, err := transcript.ReadTail(p, ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := turnsAt(got), wholeTurn(t, content); !reflect.DeepEqual(g, w) {
				t.Errorf("the checkpoint was used on a changed file: Turn %+v, want %+v", g[0], w[0])
			}
		})
	}
	t.Run("appended", func(t *testing.T) {
		// The case that must use the checkpoint: only the appended bytes are read. A
		// checkpoint naming an offset of a line that is not there shows it.
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data[:half], 0o644); err != nil {
			t.Fatal(err)
		}
		s1, ck, err := transcript.ReadTail(path, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data[half:]); err != nil {
			t.Fatal(err)
		}
		f.Close()
		s2, _, err := transcript.ReadTail(path, ck, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s2.Lines != len(ends) || s1.Lines >= s2.Lines {
			t.Errorf("lines %d then %d, want %d in all", s1.Lines, s2.Lines, len(ends))
		}
		if g, w := turnsAt(s2), wholeTurn(t, data); !reflect.DeepEqual(g, w) {
			t.Errorf("appended read differs from the whole read")
		}
	})
}

// rewrite changes b in place from offset on (a timestamp's digit, or failing that any digit),
// the same length, and writes it over path.
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

// TestHookKeepsCheckpoint runs the hook twice on a transcript that grows between the stops:
// the state file keeps the reader's checkpoint at the end of the file each time.
func TestHookKeepsCheckpoint(t *testing.T) {
	data, err := os.ReadFile("transcript/testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ends := lineEnds(data)
	half := ends[len(ends)/2]
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) }
	payload := fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false}`, path)
	run := func(stateDir string) string {
		var out, errb bytes.Buffer
		ClaudeCode(context.Background(), strings.NewReader(payload), &out, &errb, &Options{StateDir: stateDir, Now: now})
		return out.String() + "|" + errb.String()
	}
	offset := func() int64 {
		st, found, err := hook.LoadState(hook.StatePath(dir, "s1", ""))
		if err != nil || !found {
			t.Fatalf("state: found %v, %v", found, err)
		}
		var ck struct {
			Offset int64 `json:"offset"`
		}
		if err := json.Unmarshal(st.Reader, &ck); err != nil {
			t.Fatalf("state has no reader checkpoint: %v (%s)", err, st.Reader)
		}
		return ck.Offset
	}
	run(dir)
	if got := offset(); got != int64(half) {
		t.Fatalf("first stop: checkpoint at %d, want %d", got, half)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run(dir)
	if got := offset(); got != int64(len(data)) {
		t.Fatalf("second stop: checkpoint at %d, want %d", got, len(data))
	}
}
