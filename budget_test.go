package stopgate

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestBudgetZeroValue(t *testing.T) {
	var b Budget
	tests := []struct {
		g   Check
		cap int
	}{
		{CheckProcesses, 2},
		{CheckSubagents, 3},
		{CheckStall, 2}, {CheckLivelock, 1}, {BudgetPauseTurn, 5},
	}
	for _, tt := range tests {
		if b.Count(tt.g) != 0 || b.Cap(tt.g) != tt.cap || !b.Allow(tt.g) {
			t.Errorf("%s: count %d cap %d allow %t; want 0, %d, true", tt.g, b.Count(tt.g), b.Cap(tt.g), b.Allow(tt.g), tt.cap)
		}
	}
}

func TestBudgetSpend(t *testing.T) {
	var b Budget
	for i := range DefaultCap(CheckProcesses) {
		if !b.Allow(CheckProcesses) {
			t.Fatalf("denied after %d injections", i)
		}
		b.Spend(CheckProcesses)
	}
	if b.Allow(CheckProcesses) {
		t.Error("allowed past the cap")
	}
	if b.Count(CheckProcesses) != DefaultCap(CheckProcesses) || b.Count(CheckSubagents) != 0 {
		t.Errorf("counts: %d processes, %d subagents", b.Count(CheckProcesses), b.Count(CheckSubagents))
	}
	// Spending past the cap is still recorded.
	b.Spend(CheckProcesses)
	if b.Count(CheckProcesses) != DefaultCap(CheckProcesses)+1 {
		t.Errorf("count %d after an over-cap spend", b.Count(CheckProcesses))
	}
}

func TestBudgetCopiesAreIndependent(t *testing.T) {
	var a Budget
	a.Spend(CheckSubagents)
	b := a
	b.Spend(CheckSubagents)
	if a.Count(CheckSubagents) != 1 || b.Count(CheckSubagents) != 2 {
		t.Errorf("a copy's spend leaked: a=%d b=%d", a.Count(CheckSubagents), b.Count(CheckSubagents))
	}
}

func TestBudgetCaps(t *testing.T) {
	caps := map[Check]int{CheckProcesses: 5, CheckSubagents: 0, "todos": -3}
	b := Budget{Caps: caps}
	if b.Cap(CheckProcesses) != 5 || b.Cap(CheckSubagents) != 0 || b.Cap("todos") != 0 || b.Cap(CheckStall) != 2 {
		t.Errorf("caps: %d %d %d %d", b.Cap(CheckProcesses), b.Cap(CheckSubagents), b.Cap("todos"), b.Cap("stall"))
	}
	if b.Allow(CheckSubagents) || b.Allow("todos") {
		t.Error("a zero (or negative) cap must silence the gate")
	}
	b.Spend(CheckProcesses)
	if len(caps) != 3 || caps[CheckProcesses] != 5 {
		t.Error("Spend wrote to Caps")
	}
}

func TestBudgetJSON(t *testing.T) {
	var zero Budget
	if b, _ := json.Marshal(zero); string(b) != `{"processes":0,"subagents":0}` {
		t.Errorf("zero budget encodes as %s", b)
	}
	var b Budget
	b.Spend(CheckProcesses)
	b.Spend("stall")
	b.Spend("stall")
	enc, _ := json.Marshal(b)
	if string(enc) != `{"processes":1,"stall":2,"subagents":0}` {
		t.Errorf("encodes as %s", enc)
	}

	back := Budget{Caps: map[Check]int{CheckProcesses: 9}}
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if back.Count(CheckProcesses) != 1 || back.Count("stall") != 2 || back.Cap(CheckProcesses) != 9 {
		t.Errorf("decoded counts %d/%d, cap %d: caps must survive decoding", back.Count(CheckProcesses), back.Count("stall"), back.Cap(CheckProcesses))
	}

	if err := json.Unmarshal([]byte(`null`), &back); err != nil || back.Count(CheckProcesses) != 0 {
		t.Errorf("null: err %v, count %d", err, back.Count(CheckProcesses))
	}

	for _, bad := range []string{`{"processes":-1}`, `{"processes":1.5}`, `{"processes":"1"}`, `[1]`, `"x"`, `{"processes":99999999999999999999}`} {
		var x Budget
		err := json.Unmarshal([]byte(bad), &x)
		if !errors.Is(err, ErrInvalidBudget) {
			t.Errorf("%s: err = %v, want ErrInvalidBudget", bad, err)
		}
	}
}

// FuzzBudgetJSON: the injections object is outside input. Whatever decodes must hold no
// negative count and survive a round trip unchanged.
func FuzzBudgetJSON(f *testing.F) {
	for _, s := range []string{`{"processes":0,"subagents":0}`, `{"processes":2,"stall":1}`, `null`, `{}`, `{"processes":-1}`, `[]`, `{"":3}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b Budget
		if err := json.Unmarshal([]byte(s), &b); err != nil {
			return
		}
		for _, g := range []Check{CheckProcesses, CheckSubagents} {
			if b.Count(g) < 0 {
				t.Fatalf("negative count for %s from %q", g, s)
			}
		}
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var again Budget
		if err := json.Unmarshal(enc, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		enc2, _ := json.Marshal(again)
		if string(enc) != string(enc2) {
			t.Fatalf("round trip changed %s to %s", enc, enc2)
		}
	})
}
