package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stopgate/stopgate/audit"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/copilot"
	"github.com/stopgate/stopgate/harness/opencode"
)

// contractHarnesses are the harnesses that implement the harness contract, whose session
// readers the audit asks after its own.
func contractHarnesses() []harness.Harness {
	return []harness.Harness{copilot.Harness(), opencode.Harness()}
}

// auditReaders returns the readers the audit asks: its defaults, then each contract harness's.
func auditReaders() []audit.Reader {
	out := audit.DefaultReaders()
	for _, h := range contractHarnesses() {
		for _, r := range h.Readers {
			out = append(out, contractReader{r})
		}
	}
	return out
}

// contractReader adapts a harness.SessionReader to audit.Reader.
type contractReader struct{ r harness.SessionReader }

func (c contractReader) Format() string                       { return c.r.Format() }
func (c contractReader) Detect(path string, head []byte) bool { return c.r.Detect(path, head) }

func (c contractReader) Read(path string) ([]*audit.Session, error) {
	ss, err := c.r.Read(path)
	if err != nil {
		if harnessSkip(err) {
			return nil, wrapSkip(err)
		}
		return nil, err
	}
	out := make([]*audit.Session, 0, len(ss))
	for _, s := range ss {
		a := &audit.Session{Path: s.Path, Format: s.Format, Harness: s.Harness, ID: s.ID, Agent: s.Agent, Key: s.Key, Time: s.Time, Malformed: s.Malformed}
		for _, t := range s.Turns {
			a.Turns = append(a.Turns, audit.Turn{Turn: t.Turn, Ending: t.Ending, Interrupted: t.Interrupted, Trigger: t.Trigger})
		}
		for _, n := range s.Nudges {
			a.Nudges = append(a.Nudges, audit.Nudge{Turn: n.Turn, Time: n.Time, Text: n.Text, Outcome: audit.NudgeOutcome(n.Outcome), ToolCalls: n.ToolCalls})
		}
		out = append(out, a)
	}
	return out, nil
}

// harnessSkip reports whether err wraps harness.ErrSkip.
func harnessSkip(err error) bool { return errors.Is(err, harness.ErrSkip) }

// wrapSkip returns err as the audit's skip, with its text.
func wrapSkip(err error) error {
	return fmt.Errorf("%w: %s", audit.ErrSkip, strings.TrimPrefix(err.Error(), harness.ErrSkip.Error()+": "))
}
