package claudecode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/hook"
)

// stuckRecorder never returns from Record: with honour set it waits for its context, else it
// ignores it, as a driver stuck in a system call would.
type stuckRecorder struct{ honour bool }

func (r stuckRecorder) Record(ctx context.Context, _ stopgate.Turn, _ stopgate.Decision) error {
	if r.honour {
		<-ctx.Done()
		return ctx.Err()
	}
	select {} // never
}

// TestRecordBudget checks that recording has a budget of its own, apart from the decision's: a
// recorder that never answers costs the stop RecordTimeout, the answer is written all the same,
// and the note is one line.
func TestRecordBudget(t *testing.T) {
	for _, rec := range []stuckRecorder{{honour: true}, {honour: false}} {
		t.Run(map[bool]string{true: "honours its context", false: "ignores its context"}[rec.honour], func(t *testing.T) {
			p := payloadJSON(t, map[string]any{"session_id": "sess-stuck", "last_assistant_message": stalled})
			start := time.Now()
			// A decision budget shorter than the record's: recording must not run on what is
			// left of it.
			stdout, stderr, code := runHook(t, p, &Options{StateDir: t.TempDir(), Now: fixedNow, Recorder: rec, Timeout: 5 * time.Second, RecordTimeout: 300 * time.Millisecond})
			took := time.Since(start)
			if took < 300*time.Millisecond || took > 2*time.Second {
				t.Errorf("the stop took %v, want about the 300ms recording budget", took)
			}
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			checkBlock(t, stdout)
			if want := "stopgate: recording the decision: the event log did not answer within 300ms: context deadline exceeded\n"; stderr != want {
				t.Errorf("stderr = %q, want %q", stderr, want)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
		})
	}
	if hook.DefaultRecordTimeout > time.Second {
		t.Errorf("hook.DefaultRecordTimeout = %v: a store that never answers must cost a stop at most about a second", hook.DefaultRecordTimeout)
	}
}
