package stall

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/termination"
)

// countingModel is a model classifier whose client answers answer (or fails with err) and
// counts its calls.
func countingModel(answer string, err error) (*ModelClassifier, *atomic.Int32) {
	var calls atomic.Int32
	return &ModelClassifier{Client: clientFunc(func(context.Context, model.Request) (model.Response, error) {
		calls.Add(1)
		if err != nil {
			return model.Response{}, err
		}
		return model.Response{Text: answer, FinishReason: "stop"}, nil
	})}, &calls
}

func TestIsStalled(t *testing.T) {
	livelock := map[string]any{loopguard.MetadataLivelocked: true}
	const (
		todoAndIntent = "<todo>\n- [x] parse\n- [ ] test\n</todo>\nLet me write the tests."
		intent        = "The parser works. Now I'll run the tests."
		permission    = "The plan is ready. Shall I proceed?"
		noSignal      = "The header renders from the layout template."
		summary       = "All done. Let me know if anything else comes up."
	)
	tests := []struct {
		name      string
		text      string
		opts      Options
		answer    string // the model's answer; "" means no model configured
		modelErr  error
		noClient  bool // configure a ModelClassifier without a Client
		stalled   bool
		by        Detector
		why       string // a substring of Why
		modelCall bool
		reason    termination.Category // "" means Reason must be nil
		nudge     string               // a substring of Nudge
	}{
		{name: "livelock first", text: todoAndIntent, opts: Options{Metadata: livelock}, answer: "NO",
			stalled: true, by: ByLivelock, why: "livelock", nudge: "repeating the same tool call"},
		{name: "livelock on a hand-back", text: "I stopped because I was looping. What should I do?", opts: Options{Metadata: livelock},
			stalled: true, by: ByLivelock, nudge: `"What should I do?"`},
		{name: "todo before lexical", text: todoAndIntent, answer: "NO",
			stalled: true, by: ByTodo, why: "1 open todo item", nudge: "- test\n"},
		{name: "lexical stall needs no model", text: intent, answer: "NO",
			stalled: true, by: ByLexical, why: whyIntent, nudge: `"Now I'll run the tests."`},
		{name: "autonomous permission ask", text: permission, opts: Options{Mode: Autonomous},
			stalled: true, by: ByLexical, why: whyPermission, nudge: "autonomous"},
		{name: "interactive permission ask is an end, model not asked", text: permission, answer: "YES",
			by: ByNone, why: whyQuestion},
		{name: "hand-back is decisive, model not asked", text: summary, answer: "YES",
			by: ByNone, why: whyHandBack},
		{name: "no signal, no model", text: noSignal, by: ByNone, why: whyNoSignal},
		{name: "model YES", text: noSignal, answer: "YES", stalled: true, by: ByModel, why: "YES", modelCall: true,
			nudge: `"The header renders from the layout template."`},
		{name: "model NO", text: noSignal, answer: "NO", by: ByNone, why: "did not answer YES", modelCall: true},
		{name: "model fails closed", text: noSignal, modelErr: &termination.APIError{Status: 429}, by: ByNone,
			why: "rate_limited", modelCall: true, reason: termination.RateLimited},
		{name: "model without a client", text: noSignal, noClient: true, by: ByNone, why: "no model configured",
			reason: termination.Unknown},
		{name: "empty message", text: "", answer: "YES", by: ByNone, why: whyEmpty},
		{name: "code only", text: "```\nmake\n```", answer: "YES", by: ByNone, why: whyEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls *atomic.Int32
			opts := tt.opts
			switch {
			case tt.noClient:
				opts.Model = &ModelClassifier{}
			case tt.answer != "" || tt.modelErr != nil:
				opts.Model, calls = countingModel(tt.answer, tt.modelErr)
			}
			got := IsStalled(context.Background(), tt.text, opts)
			if got.Stalled != tt.stalled || got.By != tt.by || !strings.Contains(got.Why, tt.why) {
				t.Errorf("got {Stalled:%t By:%s Why:%q}, want {Stalled:%t By:%s Why~%q}", got.Stalled, got.By, got.Why, tt.stalled, tt.by, tt.why)
			}
			if called := calls != nil && calls.Load() > 0; called != tt.modelCall {
				t.Errorf("model called = %t, want %t", called, tt.modelCall)
			}
			switch {
			case tt.reason == "" && got.Reason != nil:
				t.Errorf("Reason = %v, want nil", got.Reason)
			case tt.reason != "" && (got.Reason == nil || got.Reason.Category != tt.reason):
				t.Errorf("Reason = %v, want %s", got.Reason, tt.reason)
			}
			if got.Stalled != (got.Nudge != "") {
				t.Errorf("Nudge %q must be set exactly when stalled", got.Nudge)
			}
			if !strings.Contains(got.Nudge, tt.nudge) {
				t.Errorf("Nudge = %q, want it to contain %q", got.Nudge, tt.nudge)
			}
			if got.Sentence != DanglingSentence(tt.text) {
				t.Errorf("Sentence = %q, want %q", got.Sentence, DanglingSentence(tt.text))
			}
			if (got.By == ByTodo) != (len(got.Todos) > 0) {
				t.Errorf("Todos = %q with By %s", got.Todos, got.By)
			}
		})
	}
}

func TestIsStalledTodoNudgeListsItems(t *testing.T) {
	var b strings.Builder
	b.WriteString("<todo>\n")
	for _, item := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		b.WriteString("- [ ] " + item + "\n")
	}
	b.WriteString("</todo>\nDone for now.")
	got := IsStalled(context.Background(), b.String(), Options{})
	if got.By != ByTodo || len(got.Todos) != 12 || got.Why != "12 open todo items" {
		t.Fatalf("got %+v", got)
	}
	if !strings.Contains(got.Nudge, "12 open item(s):\n- a\n") || !strings.Contains(got.Nudge, "- j\n- … and 2 more\n") || strings.Contains(got.Nudge, "- k") {
		t.Errorf("nudge = %q", got.Nudge)
	}
}

func TestIsStalledModelTimeoutIsNoNudge(t *testing.T) {
	m := &ModelClassifier{Client: clientFunc(func(ctx context.Context, _ model.Request) (model.Response, error) {
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := IsStalled(ctx, "The header renders from the layout template.", Options{Model: m})
	if got.Stalled || got.Reason == nil || got.Reason.Category != termination.Cancelled {
		t.Errorf("got %+v, want no nudge with a cancelled reason", got)
	}
}
