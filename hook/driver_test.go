package hook

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// endedHook is a harness.Hook whose every stop has already ended for reason.
type endedHook struct {
	reason  *termination.Reason
	answers int
}

func (h *endedHook) Stop(_ context.Context, _ io.Reader, now time.Time) (*harness.Stop, error) {
	return &harness.Stop{Event: "StopFailure", Ended: h.reason,
		Turn:  stopgate.Turn{Harness: "test", Session: "s1", Now: now},
		State: harness.StateKey{Session: "s1"}}, nil
}

func (h *endedHook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	h.answers++
	if d.Verdict != stopgate.Stop {
		return []byte(`{"decision":"block"}`), ""
	}
	return nil, ""
}

type spy struct{ decisions []stopgate.Decision }

func (s *spy) Record(_ context.Context, _ stopgate.Turn, d stopgate.Decision) error {
	s.decisions = append(s.decisions, d)
	return nil
}

// TestRunEnded: a Stop whose run has already ended is recorded as a Stop verdict carrying its
// reason, never decided by the supervisor, writes nothing and keeps no state.
func TestRunEnded(t *testing.T) {
	r := termination.New(termination.SiteHookClaudeCodeStopFailure, termination.SourceException,
		termination.Classification{Category: termination.RateLimited})
	h := &endedHook{reason: &r}
	rec := &spy{}
	dir := t.TempDir()
	var out, errw bytes.Buffer
	if code := Run(context.Background(), bytes.NewReader(nil), &out, &errw, h, &Options{StateDir: dir, Recorder: rec}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out.Len() != 0 || errw.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want nothing", out.String(), errw.String())
	}
	if len(rec.decisions) != 1 {
		t.Fatalf("%d decisions recorded", len(rec.decisions))
	}
	d := rec.decisions[0]
	if d.Verdict != stopgate.Stop || d.Reason == nil || d.Reason.Category != termination.RateLimited || len(d.Trail) != 1 {
		t.Errorf("decision %+v", d)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("state written for an ended run: %d files", len(entries))
	}
}
