package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/codex/rollout"
	"github.com/stopgate/stopgate/harness/internal/readers"
	"github.com/stopgate/stopgate/termination"
)

// Format is the Format of Codex CLI rollouts.
const Format = "codex"

// Reader reads Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl): one
// session a file. A sub-agent's rollout is a session of its own, its agent the nickname or role
// Codex gave it.
//
// The turns are the rollout's user turns, each Turn hook.CodexSessionTurn's. Nudges are the
// Stop hooks' blocks (the <hook_prompt> messages Codex hands the model), with what the agent
// did after each. How a turn ended is read off its task's turn_aborted reason, else off an
// error event after its last assistant message:
//
//	turn_aborted "interrupted"   cancelled        the user interrupted the turn
//	turn_aborted "replaced"      cancelled        the user's next submission replaced it
//	turn_aborted "review_ended"  cancelled        leaving review mode ended it
//	turn_aborted "budget_limited" recursion_limit the goal's token budget ran out: the taxonomy's
//	                                              run-limit member
//	turn_aborted, another reason unknown          the reason is kept as the detail
//	error "stream disconnected   stream_cut       Codex retried the response stream and gave up
//	  before completion…"
//	error "…ran out of room in   context_overflow
//	  the model's context window…"
//	error "…hit your usage       rate_limited     the plan's usage limit, or the API quota
//	  limit…", "Quota exceeded…"
//	error "…currently            provider_error   the service is overloaded
//	  experiencing high demand…"
//	any other error              what termination.Classify makes of its message
//	                             ("unexpected status 401 …" is auth_failed)
//	neither                      completed
//	no task_complete and no      abandoned        the rollout ends mid-turn (Codex was killed
//	  turn_aborted                                or still runs it): no stop, NoStopCutOff
//
// The detail of an error the table names is Codex's own code for it (context_window_exceeded,
// …). A cancelled turn is not decided: no Stop hook runs then. Nor is a turn the rollout ends
// in the middle of (see cutOff): its NoStop is NoStopCutOff. A turn aborted for another
// reason, or ended on an error, carries its ending as the Turn's Err, so the supervisor's error
// check reports it as it would for a runner that ended the run. Codex 0.169.0 has no
// StopFailure hook to report such an end live; the audit asks what stopgate makes of it.
type Reader struct{}

// Format implements harness.SessionReader.
func (Reader) Format() string { return Format }

// Detect implements harness.SessionReader: the file's first line is a rollout's session_meta entry
// ({"timestamp", "type":"session_meta", "payload"}), or the file is named rollout-*.jsonl and
// its first line is a rollout entry of another type.
func (Reader) Detect(path string, head []byte) bool {
	line, complete, ok := readers.FirstLine(head)
	if !ok {
		return false
	}
	named := strings.HasPrefix(filepath.Base(path), "rollout-") && strings.HasSuffix(path, ".jsonl")
	if !complete {
		// A session_meta line longer than the head (its base_instructions): Codex writes the
		// type before the payload.
		typ := bytes.Index(line, []byte(`"type":"session_meta"`))
		return typ >= 0 && typ < bytes.Index(line, []byte(`"payload":`))
	}
	var e struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type == "" || e.Payload == nil {
		return false
	}
	return e.Type == "session_meta" || named
}

// Read implements harness.SessionReader.
func (Reader) Read(path string) ([]*harness.Session, error) {
	cs, err := rollout.ReadCodexFile(path, nil)
	if err != nil {
		return nil, fmt.Errorf("codex: %w", err)
	}
	if len(cs.Turns) == 0 {
		return nil, fmt.Errorf("%w: no turns", harness.ErrSkip)
	}
	s := &harness.Session{
		Path: path, Format: Format, Harness: Name,
		ID: cs.ID, Agent: cs.AgentID, Time: cs.End, Malformed: cs.MalformedCount,
		Turns: make([]harness.Turn, len(cs.Turns)),
	}
	if s.Time.IsZero() {
		s.Time = readers.ModTime(path)
	}
	for i, tr := range cs.Turns {
		t := SessionTurn(cs, i)
		ending, interrupted := codexEnding(cs, i, &t)
		s.Turns[i] = harness.Turn{Turn: t, Ending: ending, Interrupted: interrupted, Trigger: string(tr.Trigger)}
		if !interrupted && cutOff(cs, i) {
			s.Turns[i].Ending = termination.Control(termination.SiteHookCodex, termination.Abandoned)
			s.Turns[i].Ending.Detail = "no task_complete"
			s.Turns[i].NoStop = NoStopCutOff
		}
	}
	s.Nudges = readers.HookNudges(cs.Session)
	return []*harness.Session{s}, nil
}

// NoStopCutOff is the NoStop of a Codex turn the rollout ends in the middle of.
const NoStopCutOff = "cut off: the rollout ends mid-turn, with no task_complete or turn_aborted"

// cutOff reports whether turn i of cs never finished: Codex started a task for it and wrote
// neither its task_complete (which it writes after the turn's last response, an error too)
// nor a turn_aborted. Codex runs the Stop hook when a turn completes, so there was no stop:
// the process ended (killed, crashed, the terminal closed) or still runs the turn. A rollout
// with no task records at all (builds before task_started) is not judged.
func cutOff(cs *rollout.CodexSession, i int) bool {
	var last *rollout.CodexTask
	for _, tk := range cs.Tasks {
		if tk.Turn == i {
			last = tk
		}
	}
	return last != nil && last.Completed.IsZero() && last.Aborted == ""
}

// codexEnding says how turn i of cs ended, as Codex documents, and gives t the ending as its
// Err when the turn was not the model's to end and the user did not end it.
func codexEnding(cs *rollout.CodexSession, i int, t *stopgate.Turn) (r termination.Reason, interrupted bool) {
	site := termination.SiteHookCodex
	var aborted string
	for _, tk := range cs.Tasks {
		if tk.Turn == i {
			aborted = tk.Aborted // the turn's last task is the one it ended with
		}
	}
	switch aborted {
	case "":
	case "interrupted", "replaced", "review_ended":
		r = termination.Control(site, termination.Cancelled)
		r.Detail = aborted
		return r, true
	default:
		c := termination.Classification{Category: termination.Unknown, Provider: ProviderOpenAI, Detail: aborted}
		if aborted == "budget_limited" {
			c.Category = termination.RecursionLimit
		}
		r = termination.New(site, termination.SourceControl, c)
		t.Err = termination.Attach(fmt.Errorf("codex turn aborted: %s", aborted), r)
		return r, false
	}
	if t.Error != nil {
		if c, ok := codexError(t.Error.Message); ok {
			r = termination.New(site, termination.SourceException, c)
			t.Err = termination.Attach(errors.New(t.Error.Message), r)
			return r, false
		}
	}
	return harness.TurnEnding(termination.SiteHookCodex, *t, cs.Turns[i].Interrupted), cs.Turns[i].Interrupted
}

// codexErrors are the messages of Codex's own errors that termination.Classify does not know,
// each a fragment of the message, its category and Codex's code for it.
var codexErrors = []struct {
	fragment string
	category termination.Category
	code     string
}{
	{"stream disconnected before completion", termination.StreamCut, "response_stream_disconnected"},
	{"ran out of room in the model's context window", termination.ContextOverflow, "context_window_exceeded"},
	{"hit your usage limit", termination.RateLimited, "usage_limit_exceeded"},
	{"Quota exceeded", termination.RateLimited, "quota_exceeded"},
	{"currently experiencing high demand", termination.ProviderError, "server_overloaded"},
}

// codexError classifies one of Codex's own error messages; ok is false for any other.
func codexError(msg string) (c termination.Classification, ok bool) {
	for _, e := range codexErrors {
		if strings.Contains(msg, e.fragment) {
			return termination.Classification{Category: e.category, Provider: ProviderOpenAI, Detail: e.code}, true
		}
	}
	return c, false
}
