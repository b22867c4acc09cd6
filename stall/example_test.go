package stall_test

import (
	"context"
	"fmt"
	"time"

	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/stall"
)

func ExampleIsStalled() {
	msg := "The title comes from the layout, not the page. Let me look at how the header renders."
	r := stall.IsStalled(context.Background(), msg, stall.Options{})
	fmt.Println(r.Stalled, r.By)
	fmt.Println(r.Why)
	fmt.Println(r.Nudge)
	// Output:
	// true lexical
	// announces its next action in the first person
	// Your last message ended with "Let me look at how the header renders.", but the turn ended before you did it. If that work is still to be done, do it now. If it is finished, or you decided against it, say so in one short final message (for example "Done: …" or "Not doing X because …") and stop. If you need the user to decide, ask the question plainly.
}

func ExampleIsStalled_livelock() {
	msg := "I stopped because I kept getting the same error. What would you like me to do?"
	r := stall.IsStalled(context.Background(), msg, stall.Options{
		Metadata: map[string]any{loopguard.MetadataLivelocked: true},
	})
	fmt.Println(r.Stalled, r.By)
	// Output: true livelock
}

// staticClient is a model.Client that always gives the same answer.
type staticClient string

func (c staticClient) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{Text: string(c), FinishReason: "stop"}, nil
}

func ExampleIsStalled_model() {
	// No lexical rule fires on this ending, so the configured model is asked.
	msg := "The failing case is the empty header."
	r := stall.IsStalled(context.Background(), msg, stall.Options{
		Model: &stall.ModelClassifier{Client: staticClient("YES")},
	})
	fmt.Println(r.Stalled, r.By)
	// Output: true model
}

func ExampleClassifyLexical() {
	for _, msg := range []string{
		"Now I'll run the tests.",
		"Here is the SEARCH/REPLACE block:",
		"I fixed the parser and all 42 tests pass.",
		"If you want, I'll add a benchmark too.",
		"Pushed. I'll wait for the CI run to finish.",
	} {
		v := stall.ClassifyLexical(msg, stall.Interactive)
		fmt.Printf("%-5t %s\n", v.Stalled, v.Why)
	}
	// A permission-ask is a fine end when a person will answer it, and a stall when nobody will.
	ask := "The migration is ready. Shall I proceed?"
	fmt.Println(stall.ClassifyLexical(ask, stall.Interactive).Stalled, stall.ClassifyLexical(ask, stall.Autonomous).Stalled)
	// Output:
	// true  announces its next action in the first person
	// true  ends on a colon that introduces nothing
	// false no stall signal
	// false hands the turn back to the user
	// false parks on background work
	// false true
}

func ExamplePendingWakeReason() {
	now := time.Date(2026, 9, 2, 14, 0, 0, 0, time.UTC)
	jobs := []stall.Job{
		{ID: "preview-1", Label: "vite dev server", Status: "running"},
		{ID: "build-123", Label: "npm test", Status: "running"},
	}
	services := map[string]bool{"preview-1": true}
	fmt.Println(stall.PendingWakeReason(jobs, nil, now, services))

	schedules := []stall.Schedule{
		{ID: "daily-report", Trigger: stall.TriggerCron, At: now.Add(19 * time.Hour)},
		{ID: "s1", Trigger: stall.TriggerOnce, At: now.Add(30 * time.Minute)},
	}
	fmt.Println(stall.PendingWakeReason(nil, schedules, now, nil))
	fmt.Printf("%q\n", stall.PendingWakeReason(nil, schedules[:1], now, nil))
	// Output:
	// job build-123 (npm test) is running
	// one-shot schedule s1 fires at 2026-09-02T14:30:00Z (in 30m0s)
	// ""
}

func ExampleOpenTodos() {
	msg := "Progress so far:\n<todo>\n- [x] reproduce the bug\n- [ ] write a failing test\n1. [ ] fix it\n</todo>"
	fmt.Printf("%q\n", stall.OpenTodos(msg))
	// Output: ["write a failing test" "fix it"]
}

func ExampleLastSentences() {
	msg := "I read the handler. It drops the error. Here is the fix:\n```go\nreturn err\n```"
	// The code block counts as one sentence.
	fmt.Println(stall.LastSentences(msg, 3))
	fmt.Println("--")
	fmt.Println(stall.DanglingSentence(msg))
	// Output:
	// It drops the error. Here is the fix:
	// ```go
	// return err
	// ```
	// --
	// Here is the fix:
}

func ExampleModelClassifier_Classify() {
	var m stall.ModelClassifier // no Client: the model classifier is off
	v := m.Classify(context.Background(), "Let me check the logs.")
	fmt.Println(v.Stalled, v.Why, v.Reason.Category)
	// Output: false no model configured unknown
}
