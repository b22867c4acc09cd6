package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/hook"
)

// eventLog builds a hand-written Copilot CLI events.jsonl in the 1.0.102 shape. Everything in
// it is made up: ids, times and text.
type eventLog struct {
	t     *testing.T
	base  time.Time
	n     int
	lines []string
}

func newEventLog(t *testing.T) *eventLog {
	l := &eventLog{t: t, base: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	l.add(0, "", "session.start", map[string]any{"sessionId": "cp-1", "copilotVersion": "1.0.102", "startTime": l.at(0).Format(time.RFC3339Nano), "context": map[string]any{"cwd": "/work"}})
	return l
}

func (l *eventLog) at(sec float64) time.Time {
	return l.base.Add(time.Duration(sec * float64(time.Second)))
}

func (l *eventLog) add(sec float64, agent, typ string, data any) *eventLog {
	l.n++
	e := map[string]any{"type": typ, "data": data, "id": fmt.Sprintf("e%d", l.n), "timestamp": l.at(sec).Format(time.RFC3339Nano)}
	if agent != "" {
		e["agentId"] = agent
	}
	b, err := json.Marshal(e)
	if err != nil {
		l.t.Fatal(err)
	}
	l.lines = append(l.lines, string(b))
	return l
}

func (l *eventLog) user(sec float64, text string) *eventLog {
	return l.add(sec, "", "user.message", map[string]any{"content": text})
}

func (l *eventLog) say(sec float64, text string) *eventLog {
	return l.add(sec, "", "assistant.message", map[string]any{"content": text})
}

// call records an assistant message with one tool request, its start and its completion.
func (l *eventLog) call(sec float64, id, name string, args any, ok bool, result string) *eventLog {
	l.add(sec, "", "assistant.message", map[string]any{"content": "", "toolRequests": []any{map[string]any{"toolCallId": id, "name": name, "arguments": args}}})
	l.add(sec, "", "tool.execution_start", map[string]any{"toolCallId": id})
	d := map[string]any{"toolCallId": id, "success": ok, "result": map[string]any{"content": result}}
	if !ok {
		d["error"] = map[string]any{"message": result}
	}
	return l.add(sec+0.5, "", "tool.execution_complete", d)
}

// stop records an agentStop hook run; a non-empty reason blocks it, and the reason comes back
// as the next user message.
func (l *eventLog) stop(sec float64, active bool, reason string) *eventLog {
	l.add(sec, "", "hook.start", map[string]any{"hookType": EventAgentStop, "input": map[string]any{"stop_hook_active": active, "timestamp": l.at(sec).UnixMilli()}})
	out := map[string]any{}
	if reason != "" {
		out = map[string]any{"decision": "block", "reason": reason}
	}
	l.add(sec, "", "hook.end", map[string]any{"hookType": EventAgentStop, "output": out})
	if reason != "" {
		l.user(sec+0.1, reason)
	}
	return l
}

func (l *eventLog) data() []byte { return []byte(strings.Join(l.lines, "\n") + "\n") }

// copilotSessions are the sessions the incremental property is checked on: the recorded
// one and hand-written ones with shells, sub-agents, errors and long runs.
func copilotSessions(t *testing.T) map[string][]byte {
	t.Helper()
	rec, err := os.ReadFile("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"recorded-1.0.102": rec}

	l := newEventLog(t)
	l.user(1, "Run the e2e suite and report.")
	l.call(2, "b1", "bash", map[string]any{"command": "make e2e", "mode": "async"}, true, "<command started in background with shellId: 0>")
	l.call(3, "t1", "task", map[string]any{"prompt": "lint"}, true, "lint clean")
	l.add(3.2, "sub-1", "assistant.message", map[string]any{"content": "Linting.", "toolRequests": []any{map[string]any{"toolCallId": "s1"}}})
	l.add(3.3, "sub-1", "user.message", map[string]any{"content": "ok"})
	l.add(3.4, "sub-1", "assistant.message", map[string]any{"content": "Lint clean."})
	l.say(4, "The suite is running; I'll report when it finishes.")
	l.stop(5, false, "A background shell is still running: wait for it.")
	l.call(6, "r1", "read_bash", map[string]any{"shellId": "0"}, true, "running…")
	l.add(7, "", "system.notification", map[string]any{"content": "Shell 0 finished", "kind": map[string]any{"type": "shell_completed", "shellId": "0", "exitCode": 1}})
	l.call(8, "r2", "read_bash", map[string]any{"shellId": "0"}, true, "<shellId: 0 completed with exit code 1>")
	l.add(8.5, "", "session.error", map[string]any{"errorType": "rate_limit", "message": "429 Too Many Requests"})
	l.say(9, "One test failed.")
	l.stop(10, true, "")
	l.lines = append(l.lines, `{not json`)
	l.user(20, "Fix it.")
	for i := range 130 {
		l.call(21+float64(i), fmt.Sprintf("c%d", i), "bash", map[string]any{"command": fmt.Sprintf("go test -run T%d", i)}, i%7 != 0, fmt.Sprintf("<shellId: %d completed with exit code 0> ok %d", 100+i, i))
	}
	l.call(160, "b2", "bash", map[string]any{"command": "sleep 100", "mode": "async", "detach": true}, true, "<command started in background with shellId: 9>")
	l.call(161, "k1", "stop_bash", map[string]any{"shellId": "9"}, true, "stopped")
	l.add(162, "", "abort", map[string]any{})
	l.say(163, "")
	out["hand-written"] = l.data()
	return out
}

// copilotTail is the Copilot hook's reader under the incremental property: the Turns of an
// agentStop (with and without stop_hook_active) and of each sub-agent's subagentStop.
func copilotTail() harnesstest.Tail {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	turnsOf := func(s *Session) any {
		todos := []stopgate.Todo{{Content: "x", Status: "pending"}}
		out := []stopgate.Turn{
			Turn(Payload{}, s, todos, now),
			Turn(Payload{StopHookActive: true}, s, nil, now),
			Turn(Payload{AgentID: "sub-1"}, s, nil, now),
		}
		var stamps []int64
		for _, h := range s.StopHooks {
			stamps = append(stamps, h.Stamp)
		}
		var last int64
		if n := len(stamps); n > 0 {
			last = stamps[n-1]
		}
		return struct {
			Turns    []stopgate.Turn
			LastStop int64
			Has      bool
		}{out, last, s.HasStop(last)}
	}
	return harnesstest.Tail{
		Tail: func(t *testing.T, path string, ck []byte) (any, []byte) {
			s, next, err := ReadTail(path, ck)
			if errors.Is(err, ErrNotSession) {
				// No event complete yet (a cut inside the first line): no session, as the
				// whole read says, and nothing to go on from.
				return "not a session", []byte("null")
			}
			if err != nil {
				t.Fatal(err)
			}
			return turnsOf(s), next
		},
		Whole: func(t *testing.T, path string) any {
			s, err := ReadFile(path)
			if errors.Is(err, ErrNotSession) {
				return "not a session"
			}
			if err != nil {
				t.Fatal(err)
			}
			return turnsOf(s)
		},
	}
}

// TestReadTailEqualsWholeRead is the incremental reader's property for Copilot CLI: for every
// golden session, cut at every line boundary (and inside lines), the Turns built by reading
// on from earlier cut points (every one before, and random sequences of them) equal the Turns
// built from the whole prefix.
func TestReadTailEqualsWholeRead(t *testing.T) {
	for name, data := range copilotSessions(t) {
		t.Run(name, func(t *testing.T) {
			harnesstest.CheckIncremental(t, name, data, 16, copilotTail())
		})
	}
}

// TestReadTailFingerprint checks that a checkpoint is not used on an event log it does not
// describe (truncated, rewritten, replaced, another path): each is read whole.
func TestReadTailFingerprint(t *testing.T) {
	s := copilotSessions(t)
	harnesstest.CheckFingerprint(t, s["hand-written"], s["recorded-1.0.102"], copilotTail())
}

// TestReadTailBounded checks that the checkpoint stays bounded on a long run.
func TestReadTailBounded(t *testing.T) {
	l := newEventLog(t)
	l.user(1, "Do it all.")
	for i := range 1000 {
		l.call(2+float64(i), fmt.Sprintf("c%d", i), "bash", map[string]any{"command": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, true, strings.Repeat("y", 500))
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	data := l.data()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, ck, err := ReadTail(path, nil)
	if err != nil || ck == nil {
		t.Fatalf("%v, checkpoint %d bytes", err, len(ck))
	}
	if len(ck) > len(data)/4 || len(s.Messages) > MaxSteps+2 {
		t.Errorf("checkpoint %d bytes for a %d-byte log, %d messages kept", len(ck), len(data), len(s.Messages))
	}
}

// TestHookKeepsCheckpoint runs the Copilot hook twice on a log that grows between the stops:
// the state file keeps the reader's checkpoint at the end of the log each time.
func TestHookKeepsCheckpoint(t *testing.T) {
	data := copilotSessions(t)["hand-written"]
	ends := harnesstest.LineEnds(data)
	half := ends[len(ends)/2]
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"sessionId":"cp-1","transcriptPath":%q,"stopHookActive":false}`, path)
	if _, err := DecodePayload(strings.NewReader(payload)); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	offset := func() int64 {
		var out, errb bytes.Buffer
		hook.Run(context.Background(), strings.NewReader(payload), &out, &errb, Hook{}, &hook.Options{StateDir: dir, Now: now})
		st, found, err := hook.LoadState(hook.StatePath(dir, stateKey("cp-1"), ""))
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

// TestReadTailBadCheckpoint checks that a checkpoint that is not one reads the log whole,
// and that a damaged one neither fails nor panics.
func TestReadTailBadCheckpoint(t *testing.T) {
	harnesstest.CheckBadCheckpoints(t, copilotSessions(t)["hand-written"], copilotTail())
}

// BenchmarkReadTail measures the Copilot CLI hook's read of a 20 MB log (one long run of
// 20,000 bash calls): the first stop, and a stop after one more line.
func BenchmarkReadTail(b *testing.B) {
	l := newEventLog(&testing.T{})
	l.user(1, "Do it all.")
	for i := range 20000 {
		l.call(2+float64(i), fmt.Sprintf("c%d", i), "bash", map[string]any{"command": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, true, strings.Repeat("y", 500))
	}
	data := l.data()
	l.lines = nil
	l.say(30000, "Done.")
	harnesstest.BenchTail(b, data, l.data(), func(path string, ck []byte) []byte {
		_, next, err := ReadTail(path, ck)
		if err != nil {
			b.Fatal(err)
		}
		return next
	})
}
