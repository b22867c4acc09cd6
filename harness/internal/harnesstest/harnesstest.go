// Package harnesstest holds what the harness packages' tests share: the readable rendering of
// a Turn their golden files pin.
package harnesstest

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/loopguard"
)

// GoldenTurn renders a Turn for a golden file: the last few steps, long strings cut, so the
// file stays readable while still pinning every field.
func GoldenTurn(t testing.TB, tu stopgate.Turn) []byte {
	t.Helper()
	cut := func(s string) string {
		const n = 160
		if utf8.RuneCountInString(s) <= n {
			return s
		}
		r := []rune(s)
		return string(r[:n]) + fmt.Sprintf("… [%d runes]", len(r))
	}
	total := len(tu.Steps)
	if total > 4 {
		tu.Steps = tu.Steps[total-4:]
	}
	steps := make([]loopguard.Step, len(tu.Steps))
	for i, st := range tu.Steps {
		steps[i] = loopguard.Step{Tool: st.Tool, Args: cut(st.Args), Result: cut(st.Result), Error: cut(st.Error), Text: cut(st.Text)}
	}
	tu.Steps = steps
	if tu.Message != nil {
		m := *tu.Message
		m.Text = cut(m.Text)
		tu.Message = &m
	}
	b, err := json.MarshalIndent(struct {
		StepsTotal int `json:"steps_total"`
		stopgate.Turn
	}{total, tu}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
