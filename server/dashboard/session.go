package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// sessionPage is what the session template shows.
type sessionPage struct {
	page
	ID           string
	Harnesses    []string
	Agents       []string
	First, Last  time.Time
	Decisions    []decisionView
	Terminations []terminationView
	Observations []observationView
	// Nudges counts the decisions that continued or retried, PendingNudges those of them
	// made while work was pending.
	Nudges, PendingNudges int
	// Capped reports that the session has more events than the page shows (the newest
	// sessionLimit).
	Capped bool
	Limit  int
}

// decisionView is one decision with its trail.
type decisionView struct {
	// Anchor is the decision's fragment id on the page ("d3").
	Anchor  string
	N       int
	Time    time.Time
	Agent   string
	Verdict stopgate.Verdict
	Check   stopgate.Check
	Message string
	Reason  *reasonView
	Trail   []trailView
	Pending bool
	// Consecutive is the turn's count of nudges in a row after this decision.
	Consecutive int
	// Raw is the payload when it could not be read as a decision.
	Raw string
}

// trailView is one trail entry; Decided marks the entry of the check that decided.
type trailView struct {
	Check   stopgate.Check
	Outcome stopgate.Outcome
	Why     string
	Reason  *reasonView
	Decided bool
}

// reasonView is a termination reason as the page spells it out.
type reasonView struct {
	Category termination.Category
	Site     termination.Site
	Source   termination.Source
	Provider string
	Detail   string
	Remedy   termination.Remedy
	// Retry says what retrying would take: "as is", "after <remedy>" or "no".
	Retry string
}

// terminationView is one termination event of the session.
type terminationView struct {
	Time    time.Time
	Agent   string
	Check   stopgate.Check
	Verdict stopgate.Verdict
	Reason  reasonView
	// Decision is the anchor of the decision it was recorded with, empty when none.
	Decision string
	// Raw is the payload when it could not be read as a reason.
	Raw string
}

// observationView is one finish-reason observation.
type observationView struct {
	Time     time.Time
	Agent    string
	Path     string
	Token    string
	Present  bool
	Category termination.Category
	Provider string
}

// session serves GET /sessions/{id}: one Query for the session's events, newest sessionLimit,
// shown oldest first.
func (h *handler) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validText(id) {
		// Not an id the store could hold.
		h.fail(w, r, "../", http.StatusNotFound, fmt.Sprintf("The event log holds nothing for session %q.", id), nil)
		return
	}
	// One more than is shown, to know whether there are more.
	events, err := h.st.Query(r.Context(), store.Filter{Session: id, Newest: true, Limit: sessionLimit + 1})
	if err != nil {
		h.fail(w, r, "../", http.StatusInternalServerError, "The event log could not be read.", err)
		return
	}
	capped := len(events) > sessionLimit
	events = events[:min(len(events), sessionLimit)]
	if len(events) == 0 {
		h.fail(w, r, "../", http.StatusNotFound, fmt.Sprintf("The event log holds nothing for session %q.", id), nil)
		return
	}
	slices.Reverse(events)
	now := h.now().UTC()
	p := buildSession(id, events, page{Title: h.title, Heading: "Session " + id, Root: "../", Now: now})
	p.Capped = capped
	h.render(w, r, http.StatusOK, "session", p)
}

// buildSession lays out a session's events, oldest first.
func buildSession(id string, events []store.Event, pg page) sessionPage {
	p := sessionPage{page: pg, ID: id, First: events[0].Time, Last: events[len(events)-1].Time, Limit: sessionLimit}
	anchors := map[string]string{}
	for _, e := range events {
		if e.Harness != "" && !slices.Contains(p.Harnesses, e.Harness) {
			p.Harnesses = append(p.Harnesses, e.Harness)
		}
		if e.Agent != "" && !slices.Contains(p.Agents, e.Agent) {
			p.Agents = append(p.Agents, e.Agent)
		}
		switch e.Kind {
		case store.KindDecision:
			d := decisionOf(e, len(p.Decisions)+1)
			anchors[e.ID] = d.Anchor
			if d.Verdict == stopgate.Continue || d.Verdict == stopgate.Retry {
				p.Nudges++
				if d.Pending {
					p.PendingNudges++
				}
			}
			p.Decisions = append(p.Decisions, d)
		case store.KindTermination:
			t := terminationView{Time: e.Time, Agent: e.Agent, Check: e.Check, Verdict: e.Verdict, Decision: anchors[e.Ref]}
			var reason termination.Reason
			if err := json.Unmarshal(e.Payload, &reason); err != nil {
				t.Reason, t.Raw = reasonView{Category: e.Category, Provider: e.Provider}, string(e.Payload)
			} else {
				t.Reason = *viewReason(&reason)
				if t.Reason.Provider == "" {
					t.Reason.Provider = e.Provider
				}
			}
			p.Terminations = append(p.Terminations, t)
		case store.KindObservation:
			o := observationView{Time: e.Time, Agent: e.Agent, Category: e.Category, Provider: e.Provider}
			var obs termination.Observation
			if err := json.Unmarshal(e.Payload, &obs); err == nil {
				o.Path, o.Token, o.Present = obs.Path, obs.Token, obs.Present
			}
			p.Observations = append(p.Observations, o)
		}
	}
	return p
}

// decisionOf reads a decision event: from its payload, or from its columns when the payload
// is not a decision.
func decisionOf(e store.Event, n int) decisionView {
	v := decisionView{
		Anchor: "d" + strconv.Itoa(n), N: n, Time: e.Time, Agent: e.Agent,
		Verdict: e.Verdict, Check: e.Check, Pending: e.Pending,
	}
	var d stopgate.Decision
	if err := json.Unmarshal(e.Payload, &d); err != nil || d.Verdict == "" {
		v.Raw = string(e.Payload)
		return v
	}
	v.Verdict, v.Check, v.Message = d.Verdict, d.Check, d.Message
	v.Reason = viewReason(d.Reason)
	v.Consecutive = d.Nudges.Consecutive
	decided := -1
	if d.Check != stopgate.CheckCompleted {
		// The deciding check's entry is its last one: a check records once, or twice when
		// its budget ran out and a later entry says so.
		for i, te := range d.Trail {
			if te.Check == d.Check {
				decided = i
			}
		}
	}
	for i, te := range d.Trail {
		v.Trail = append(v.Trail, trailView{
			Check: te.Check, Outcome: te.Outcome, Why: te.Why, Reason: viewReason(te.Reason), Decided: i == decided,
		})
	}
	return v
}

// viewReason spells out a reason; nil for none.
func viewReason(r *termination.Reason) *reasonView {
	if r == nil || r.IsZero() {
		return nil
	}
	v := &reasonView{
		Category: r.Category, Site: r.Site, Source: r.Source, Provider: r.Provider, Detail: r.Detail,
		Remedy: r.Remedy(), Retry: "no",
	}
	switch {
	case r.RetryableAsIs():
		v.Retry = "as is"
	case r.RetryableAfterRemedy() && v.Remedy != "":
		v.Retry = "after " + string(v.Remedy)
	}
	return v
}
