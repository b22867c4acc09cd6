package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// ShadowBlock is one stop a hook in shadow mode let happen though it decided to keep the
// agent going: a decision with verdict stopgate.Shadow, as the event log holds it. A session
// file does not show these (the agent stopped, and no nudge was handed on), so the audit
// reads them from the log (Options.HookLog), by the session's harness, id and agent.
type ShadowBlock struct {
	Time  time.Time      `json:"time"`
	Check stopgate.Check `json:"check"`
	// Message is what the hook would have handed on: the promising sentence quoted, the open
	// todo, the unread process.
	Message string `json:"message"`
}

// shadowBlocks reads from log the shadow would-blocks the hook recorded for each session and
// adds them to its report: SessionReport.Shadow and Counts.Shadow.
func shadowBlocks(ctx context.Context, log store.Store, sessions []*sessionResult) error {
	for _, s := range sessions {
		r := &s.report
		if r.Session == "" {
			continue
		}
		evs, err := log.Query(ctx, store.Filter{Kind: store.KindDecision, Harness: r.Harness, Session: r.Session, Verdict: stopgate.Shadow})
		if err != nil {
			return fmt.Errorf("audit: reading the hook's shadow decisions of %s: %w", r.Session, err)
		}
		r.Shadow = []ShadowBlock{}
		for _, e := range evs {
			if e.Agent != r.Agent {
				continue
			}
			var d struct {
				Check   stopgate.Check `json:"check"`
				Message string         `json:"message"`
			}
			if err := json.Unmarshal(e.Payload, &d); err != nil {
				return fmt.Errorf("audit: shadow decision %s of %s: %w", e.ID, r.Session, err)
			}
			r.Shadow = append(r.Shadow, ShadowBlock{Time: e.Time, Check: e.Check, Message: d.Message})
		}
		r.Counts.Shadow = len(r.Shadow)
	}
	return nil
}
