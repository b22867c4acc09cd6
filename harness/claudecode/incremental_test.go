package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/hook"
	"github.com/stopgate/stopgate/internal/dataset"
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

// claudeTail is the Claude Code hook's reader under the incremental property: the Turns of
// a stop with and without last_assistant_message.
func claudeTail() harnesstest.Tail {
	return harnesstest.Tail{
		Tail: func(t *testing.T, path string, ck []byte) (any, []byte) {
			s, next, err := transcript.ReadTail(path, ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			return turnsAt(s), next
		},
		Whole: func(t *testing.T, path string) any {
			s, err := transcript.ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return turnsAt(s)
		},
	}
}

// TestReadTailEqualsWholeRead is the incremental reader's property: for every golden session,
// cut at every line boundary, the Turn built from ReadTail going on from earlier cut points
// equals the Turn built from the whole prefix (harnesstest.CheckIncremental: every boundary
// before, random sequences of them, and cuts inside lines); the real sessions, larger, at a
// random sample of boundaries.
func TestReadTailEqualsWholeRead(t *testing.T) {
	every, sampled := goldenSessions(t)
	for _, path := range every {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckIncremental(t, filepath.Base(path), data, 16, claudeTail())
	}
	if testing.Short() {
		return
	}
	rng := rand.New(rand.NewSource(16))
	for _, path := range sampled {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ends := harnesstest.LineEnds(data)
		var cuts []int
		for i, e := range ends {
			if rng.Intn(len(ends)/25+1) == 0 || i == len(ends)-1 {
				cuts = append(cuts, e)
			}
		}
		harnesstest.Grow(t, filepath.Base(path), data, cuts, claudeTail())
	}
}

// TestReadTailFingerprint checks that a checkpoint is not used on a file it does not
// describe (truncated, rewritten before the offset, replaced by another file at the same
// path, another path under the same session: harnesstest.CheckFingerprint), and that an
// appended file is read on from it: only the appended lines are read.
func TestReadTailFingerprint(t *testing.T) {
	data, err := os.ReadFile("transcript/testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile("transcript/testdata/claude-code/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckFingerprint(t, data, other, claudeTail())
	t.Run("appended lines only", func(t *testing.T) {
		ends := harnesstest.LineEnds(data)
		half := ends[len(ends)/2]
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
	})
}

// TestHookKeepsCheckpoint runs the hook twice on a transcript that grows between the stops:
// the state file keeps the reader's checkpoint at the end of the file each time.
func TestHookKeepsCheckpoint(t *testing.T) {
	data, err := os.ReadFile("transcript/testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ends := harnesstest.LineEnds(data)
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
