package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/codex/rollout"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/hook"
)

// goldenRollouts are the rollouts the incremental property is checked on: the recorded one
// and every hand-written one TestCodexSessionTurn reads.
func goldenRollouts(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, tt := range codexSessionCases {
		if tt.build == nil {
			out[tt.name] = []byte(readText(t, codexRolloutFile))
			continue
		}
		r := newCodexRollout(t)
		tt.build(r)
		out[tt.name] = []byte(strings.Join(r.lines, "\n") + "\n")
	}
	return out
}

// codexTail is the Codex hook's reader under the incremental property: the Turns of a stop
// with and without last_assistant_message, and with the turn_id of each task the whole
// rollout names (an earlier turn's is read whole, as the hook does).
func codexTail(turnIDs []string) harnesstest.Tail {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	msg := "All done."
	turnsOf := func(t *testing.T, s func(turnID string) *rollout.CodexSession) []stopgate.Turn {
		var out []stopgate.Turn
		for _, id := range append([]string{""}, turnIDs...) {
			cs := s(id)
			out = append(out, Turn(Payload{HookEventName: EventStop, TurnID: id}, cs, now),
				Turn(Payload{HookEventName: EventStop, TurnID: id, LastAssistantMessage: &msg}, cs, now))
		}
		return out
	}
	return harnesstest.Tail{
		Tail: func(t *testing.T, path string, ck []byte) (any, []byte) {
			var next []byte
			turns := turnsOf(t, func(id string) *rollout.CodexSession {
				s, n, err := readRollout(path, ck, id)
				if err != nil {
					t.Fatal(err)
				}
				if next == nil {
					next = n
				}
				return s
			})
			return turns, next
		},
		Whole: func(t *testing.T, path string) any {
			s, err := rollout.ReadCodexFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return turnsOf(t, func(string) *rollout.CodexSession { return s })
		},
	}
}

// taskTurnIDs returns the turn ids of the tasks in the rollout data.
func taskTurnIDs(t *testing.T, data []byte) []string {
	s, err := rollout.ReadCodex(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range s.Tasks {
		if tk.TurnID != "" {
			ids = append(ids, tk.TurnID)
		}
	}
	return append(ids, "no-such-turn")
}

// TestReadTailEqualsWholeRead is the incremental reader's property for Codex: for every
// golden rollout, cut at every line boundary (and inside lines), the Turns built by reading on
// from earlier cut points (every one before, and random sequences of them) equal the Turns
// built from the whole prefix.
func TestReadTailEqualsWholeRead(t *testing.T) {
	for name, data := range goldenRollouts(t) {
		t.Run(name, func(t *testing.T) {
			harnesstest.CheckIncremental(t, name, data, 16, codexTail(taskTurnIDs(t, data)))
		})
	}
}

// TestReadTailFingerprint checks that a checkpoint is not used on a rollout it does not
// describe (truncated, rewritten, replaced, another path): each is read whole.
func TestReadTailFingerprint(t *testing.T) {
	rollouts := goldenRollouts(t)
	data, other := rollouts["recorded-0.169.0"], rollouts["as-of"]
	harnesstest.CheckFingerprint(t, data, other, codexTail(taskTurnIDs(t, data)))
}

// TestReadTailBounded checks that the checkpoint stays bounded on a long run: a thousand tool
// calls in one turn keep a checkpoint far smaller than the rollout.
func TestReadTailBounded(t *testing.T) {
	r := newCodexRollout(t)
	r.prompt(0, "t1", "Do it all.")
	for i := range 1000 {
		r.call(float64(1+i), fmt.Sprintf("c%d", i), "exec_command", map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, "Process exited with code 0\nOutput:\n"+strings.Repeat("y", 500))
	}
	path := r.write(t.TempDir())
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ck, err := rollout.ReadTail(path, nil, nil)
	if err != nil || ck == nil {
		t.Fatalf("%v, checkpoint %d bytes", err, len(ck))
	}
	if len(ck) > int(fi.Size())/4 {
		t.Errorf("checkpoint %d bytes for a %d-byte rollout", len(ck), fi.Size())
	}
	if n := len(s.Turns); n != 1 || len(s.Turns[0].Messages) > 101 {
		t.Errorf("%d turns, %d messages kept", n, len(s.Turns[0].Messages))
	}
}

// TestHookKeepsCheckpoint runs the Codex hook twice on a rollout that grows between the
// stops: the state file keeps the reader's checkpoint at the end of the file each time.
func TestHookKeepsCheckpoint(t *testing.T) {
	data := []byte(readText(t, codexRolloutFile))
	ends := harnesstest.LineEnds(data)
	half := ends[len(ends)/2]
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.jsonl")
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"session_id":"cx1","transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false}`, path)
	now := func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	offset := func() int64 {
		var out, errb bytes.Buffer
		hook.Run(context.Background(), strings.NewReader(payload), &out, &errb, Hook{}, &hook.Options{StateDir: dir, Now: now})
		st, found, err := hook.LoadState(hook.StatePath(dir, "cx1", ""))
		if err != nil || !found {
			t.Fatalf("state: found %v, %v (stderr %s)", found, err, errb.String())
		}
		var ck struct {
			Offset int64 `json:"offset"`
		}
		if err := json.Unmarshal(st.Reader, &ck); err != nil {
			t.Fatalf("state has no reader checkpoint: %v (%s)", err, st.Reader)
		}
		return ck.Offset
	}
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
	if got := offset(); got != int64(len(data)) {
		t.Fatalf("second stop: checkpoint at %d, want %d", got, len(data))
	}
}

// TestReadTailBadCheckpoint checks that a checkpoint that is not one reads the rollout whole,
// and that a damaged one neither fails nor panics.
func TestReadTailBadCheckpoint(t *testing.T) {
	data := goldenRollouts(t)["recorded-0.169.0"]
	harnesstest.CheckBadCheckpoints(t, data, codexTail(taskTurnIDs(t, data)))
}

// BenchmarkReadTail measures the Codex hook's read of a 20 MB rollout (one long run of
// 20,000 exec calls): the first stop, and a stop after one more line.
func BenchmarkReadTail(b *testing.B) {
	t := &testing.T{}
	r := newCodexRollout(t)
	r.prompt(0, "t1", "Do it all.")
	for i := range 20000 {
		r.call(float64(1+i), fmt.Sprintf("c%d", i), "exec_command", map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, "Process exited with code 0\nOutput:\n"+strings.Repeat("y", 500))
	}
	data := []byte(strings.Join(r.lines, "\n") + "\n")
	r.lines = nil
	r.say(30000, "Done.")
	harnesstest.BenchTail(b, data, []byte(r.lines[0]+"\n"), func(path string, ck []byte) []byte {
		_, next, err := rollout.ReadTail(path, ck, nil)
		if err != nil {
			b.Fatal(err)
		}
		return next
	})
}
