package gate

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestBudgetZeroValue(t *testing.T) {
	var b Budget
	tests := []struct {
		g   Name
		cap int
	}{
		{ProcessGate, MaxProcessGateInjections},
		{SubagentGate, MaxSubagentGateInjections},
		{"stall", 1},
	}
	for _, tt := range tests {
		if b.Count(tt.g) != 0 || b.Cap(tt.g) != tt.cap || !b.Allow(tt.g) {
			t.Errorf("%s: count %d cap %d allow %t; want 0, %d, true", tt.g, b.Count(tt.g), b.Cap(tt.g), b.Allow(tt.g), tt.cap)
		}
	}
}

func TestBudgetSpend(t *testing.T) {
	var b Budget
	for i := range MaxProcessGateInjections {
		if !b.Allow(ProcessGate) {
			t.Fatalf("denied after %d injections", i)
		}
		b.Spend(ProcessGate)
	}
	if b.Allow(ProcessGate) {
		t.Error("allowed past the cap")
	}
	if b.Count(ProcessGate) != MaxProcessGateInjections || b.Count(SubagentGate) != 0 {
		t.Errorf("counts: %d processes, %d subagents", b.Count(ProcessGate), b.Count(SubagentGate))
	}
	// Spending past the cap is still recorded.
	b.Spend(ProcessGate)
	if b.Count(ProcessGate) != MaxProcessGateInjections+1 {
		t.Errorf("count %d after an over-cap spend", b.Count(ProcessGate))
	}
}

func TestBudgetCopiesAreIndependent(t *testing.T) {
	var a Budget
	a.Spend(SubagentGate)
	b := a
	b.Spend(SubagentGate)
	if a.Count(SubagentGate) != 1 || b.Count(SubagentGate) != 2 {
		t.Errorf("a copy's spend leaked: a=%d b=%d", a.Count(SubagentGate), b.Count(SubagentGate))
	}
}

func TestBudgetCaps(t *testing.T) {
	caps := map[Name]int{ProcessGate: 5, SubagentGate: 0, "todos": -3}
	b := Budget{Caps: caps}
	if b.Cap(ProcessGate) != 5 || b.Cap(SubagentGate) != 0 || b.Cap("todos") != 0 || b.Cap("stall") != 1 {
		t.Errorf("caps: %d %d %d %d", b.Cap(ProcessGate), b.Cap(SubagentGate), b.Cap("todos"), b.Cap("stall"))
	}
	if b.Allow(SubagentGate) || b.Allow("todos") {
		t.Error("a zero (or negative) cap must silence the gate")
	}
	b.Spend(ProcessGate)
	if len(caps) != 3 || caps[ProcessGate] != 5 {
		t.Error("Spend wrote to Caps")
	}
}

func TestBudgetJSON(t *testing.T) {
	var zero Budget
	if b, _ := json.Marshal(zero); string(b) != `{"processes":0,"subagents":0}` {
		t.Errorf("zero budget encodes as %s", b)
	}
	var b Budget
	b.Spend(ProcessGate)
	b.Spend("stall")
	b.Spend("stall")
	enc, _ := json.Marshal(b)
	if string(enc) != `{"processes":1,"stall":2,"subagents":0}` {
		t.Errorf("encodes as %s", enc)
	}

	back := Budget{Caps: map[Name]int{ProcessGate: 9}}
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if back.Count(ProcessGate) != 1 || back.Count("stall") != 2 || back.Cap(ProcessGate) != 9 {
		t.Errorf("decoded counts %d/%d, cap %d: caps must survive decoding", back.Count(ProcessGate), back.Count("stall"), back.Cap(ProcessGate))
	}

	if err := json.Unmarshal([]byte(`null`), &back); err != nil || back.Count(ProcessGate) != 0 {
		t.Errorf("null: err %v, count %d", err, back.Count(ProcessGate))
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
		for _, g := range []Name{ProcessGate, SubagentGate} {
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
