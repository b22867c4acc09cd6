package gate

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// spent returns injection counts.
func spent(processes, subagents int) Injections {
	return Injections{ProcessGate: processes, SubagentGate: subagents}
}

func TestCheck(t *testing.T) {
	running := proc(nil)
	failed := proc(func(p *Process) { p.ID = "bbbb2222"; exited(p, 1); p.LogSize = 10 })
	child := Subagent{ID: "child1", Status: StatusRunning, StartedAt: ms(1010)}

	tests := []struct {
		name       string
		in         Input
		blocked    bool
		gate       Name
		unresolved []string
		exhausted  []Name
		after      [2]int // processes, subagents counts after the check
	}{
		{
			name: "nothing to do",
			in:   Input{RunStartedAt: runStart},
			gate: NoGate, unresolved: []string{}, exhausted: []Name{},
		},
		{
			name:    "a process blocks",
			in:      Input{RunStartedAt: runStart, Processes: []Process{failed, running}},
			blocked: true, gate: ProcessGate, unresolved: []string{"aaaa1111", "bbbb2222"}, exhausted: []Name{},
			after: [2]int{1, 0},
		},
		{
			// H4: the child gate wins, and the process gate is neither consulted nor charged.
			name:    "H4 sub-agents first",
			in:      Input{RunStartedAt: runStart, Processes: []Process{running}, Subagents: []Subagent{child}},
			blocked: true, gate: SubagentGate, unresolved: []string{"child1"}, exhausted: []Name{},
			after: [2]int{0, 1},
		},
		{
			name: "sub-agents exhausted, processes still block",
			in: Input{RunStartedAt: runStart, Processes: []Process{running}, Subagents: []Subagent{child},
				Injections: spent(0, MaxSubagentGateInjections)},
			blocked: true, gate: ProcessGate, unresolved: []string{"aaaa1111"}, exhausted: []Name{SubagentGate},
			after: [2]int{1, MaxSubagentGateInjections},
		},
		{
			// H3 after the cap: the gate goes silent, and says so.
			name: "processes exhausted",
			in: Input{RunStartedAt: runStart, Processes: []Process{running},
				Injections: spent(MaxProcessGateInjections, 0)},
			gate: NoGate, unresolved: []string{"aaaa1111"}, exhausted: []Name{ProcessGate},
			after: [2]int{MaxProcessGateInjections, 0},
		},
		{
			name: "both exhausted",
			in: Input{RunStartedAt: runStart, Processes: []Process{running}, Subagents: []Subagent{child},
				Injections: spent(MaxProcessGateInjections, MaxSubagentGateInjections)},
			gate: NoGate, unresolved: []string{"child1", "aaaa1111"}, exhausted: []Name{SubagentGate, ProcessGate},
			after: [2]int{MaxProcessGateInjections, MaxSubagentGateInjections},
		},
		{
			// H2: the process predates the run.
			name: "H2 process from an earlier run",
			in:   Input{RunStartedAt: ms(2000), Processes: []Process{running}},
			gate: NoGate, unresolved: []string{}, exhausted: []Name{},
		},
		{
			name: "run start unknown: no process blocks",
			in:   Input{Processes: []Process{running, failed}},
			gate: NoGate, unresolved: []string{}, exhausted: []Name{},
		},
		{
			name:    "run start unknown: sub-agents still block",
			in:      Input{Subagents: []Subagent{child}},
			blocked: true, gate: SubagentGate, unresolved: []string{"child1"}, exhausted: []Name{},
			after: [2]int{0, 1},
		},
		{
			name: "a cap of zero configured",
			in: Input{RunStartedAt: runStart, Processes: []Process{running},
				Caps: map[Name]int{ProcessGate: 0}},
			gate: NoGate, unresolved: []string{"aaaa1111"}, exhausted: []Name{ProcessGate},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.in.Injections)
			r := Check(tt.in)
			if r.Blocked != tt.blocked || r.Gate != tt.gate {
				t.Errorf("blocked %t gate %q, want %t %q", r.Blocked, r.Gate, tt.blocked, tt.gate)
			}
			if !slices.Equal(r.Unresolved, tt.unresolved) {
				t.Errorf("unresolved %q, want %q", r.Unresolved, tt.unresolved)
			}
			if !slices.Equal(r.Exhausted, tt.exhausted) {
				t.Errorf("exhausted %q, want %q", r.Exhausted, tt.exhausted)
			}
			if (r.Message != "") != r.Blocked {
				t.Errorf("message %q with blocked %t", r.Message, r.Blocked)
			}
			for _, id := range r.Unresolved {
				if r.Blocked && !strings.Contains(r.Message, id) {
					t.Errorf("message does not name %q", id)
				}
			}
			if got := [2]int{r.Injections[ProcessGate], r.Injections[SubagentGate]}; got != tt.after {
				t.Errorf("injections after = %v, want %v", got, tt.after)
			}
			if after, _ := json.Marshal(tt.in.Injections); string(after) != string(before) {
				t.Errorf("Check changed its input's budget from %s to %s", before, after)
			}
		})
	}
}

// TestCheckRunOfPolls replays the origin's host tests H1 and H3 as a sequence of polls, each
// feeding back the budget the previous one returned.
func TestCheckRunOfPolls(t *testing.T) {
	t.Run("H1 read once, then free", func(t *testing.T) {
		p := proc(func(p *Process) { p.Command = "echo gate-probe; sleep 30" })
		r := Check(Input{RunStartedAt: runStart, Processes: []Process{p}})
		if !r.Blocked || r.Injections[ProcessGate] != 1 {
			t.Fatalf("poll 1: %+v", r)
		}
		p.ReadOffset, p.LogSize, p.LastReadAt = 11, 11, msp(3000)
		r = Check(Input{RunStartedAt: runStart, Processes: []Process{p}, Injections: r.Injections})
		if r.Blocked || r.Injections[ProcessGate] != 1 || len(r.Exhausted) != 0 {
			t.Fatalf("poll 2: %+v", r)
		}
	})
	t.Run("H3 cap", func(t *testing.T) {
		in := Input{RunStartedAt: runStart, Processes: []Process{proc(func(p *Process) { p.Command = "sleep 30" })}}
		var got []bool
		for range 4 {
			r := Check(in)
			got = append(got, r.Blocked)
			in.Injections = r.Injections
		}
		if want := []bool{true, true, false, false}; !slices.Equal(got, want) {
			t.Errorf("blocked per poll = %v, want %v", got, want)
		}
		if in.Injections[ProcessGate] != 2 {
			t.Errorf("counter = %d, want 2", in.Injections[ProcessGate])
		}
	})
	t.Run("dev server left running on purpose", func(t *testing.T) {
		// The agent reads the server's (empty) output once and says it is leaving it running.
		srv := proc(func(p *Process) { p.ID, p.Command = "srv1", "pnpm dev" })
		r := Check(Input{RunStartedAt: runStart, Processes: []Process{srv}})
		if !r.Blocked {
			t.Fatal("an unread dev server started this run must block once")
		}
		srv.LastReadAt = msp(4000)
		if r = Check(Input{RunStartedAt: runStart, Processes: []Process{srv}, Injections: r.Injections}); r.Blocked {
			t.Fatalf("an acknowledged dev server still blocks: %+v", r)
		}
	})
}

// TestCheckJSON pins the CLI's record shapes, in and out.
func TestCheckJSON(t *testing.T) {
	in := `{
		"now": "2026-08-23T10:05:00Z",
		"run_started_at": "2026-08-23T10:00:00Z",
		"processes": [
			{"id": "srv1", "command": "pnpm dev", "started_at": "2026-08-22T09:00:00Z", "status": "running"},
			{"id": "t1", "command": "go test ./...", "started_at": "2026-08-23T10:01:00Z", "status": "exited",
			 "exited_at": "2026-08-23T10:04:00Z", "exit_code": 1, "log_size": 2048, "read_offset": 2048,
			 "last_read_at": "2026-08-23T10:02:00Z"},
			{"id": "b1", "command": "go build ./...", "started_at": "2026-08-23T10:01:00Z", "status": "exited",
			 "exited_at": "2026-08-23T10:02:00Z", "exit_code": 0}
		],
		"subagents": [
			{"id": "a1", "status": "finished", "started_at": "2026-08-23T10:00:30Z", "result_collected": true}
		],
		"injections": {"processes": 1, "subagents": 0}
	}`
	var input Input
	if err := json.Unmarshal([]byte(in), &input); err != nil {
		t.Fatal(err)
	}
	if input.RunStartedAt.IsZero() || len(input.Processes) != 3 || input.Injections[ProcessGate] != 1 {
		t.Fatalf("decoded %+v", input)
	}
	out, err := json.MarshalIndent(Check(input), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "check_blocked.golden", string(out)+"\n")

	input.Injections[ProcessGate]++
	out, _ = json.Marshal(Check(input))
	want := `{"blocked":false,"gate":"none","message":"","unresolved":["t1"],"exhausted":["processes"],"injections":{"processes":2,"subagents":0}}`
	if string(out) != want {
		t.Errorf("exhausted result\n got %s\nwant %s", out, want)
	}

	out, _ = json.Marshal(Check(Input{}))
	want = `{"blocked":false,"gate":"none","message":"","unresolved":[],"exhausted":[],"injections":{"processes":0,"subagents":0}}`
	if string(out) != want {
		t.Errorf("empty result\n got %s\nwant %s", out, want)
	}

	if b, _ := json.Marshal(Input{}); string(b) != `{"injections":{"processes":0,"subagents":0}}` {
		t.Errorf("zero Input encodes as %s", b)
	}
}

// FuzzCheckJSON feeds arbitrary CLI input records to Check. Whatever decodes must give a
// coherent result: a message exactly when blocked, a real gate when blocked, every named id
// in the message, and only the blocking gate charged.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p","started_at":"2026-08-23T10:00:00Z","status":"running"}]}`,
		`{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p","started_at":"2026-08-23T10:00:01Z","status":"exited","exit_code":2,"log_size":5}],"injections":{"processes":1}}`,
		`{"subagents":[{"id":"s","status":"failed"},{"id":"t","status":"running"}],"injections":{"subagents":3}}`,
		`{"processes":[{"id":"p","exited_at":"2026-08-23T10:00:00Z","last_read_at":"2026-08-23T09:00:00Z"}],"run_started_at":"2026-08-23T08:00:00Z"}`,
		`{"injections":{"processes":-1}}`,
		`null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var in Input
		if err := json.Unmarshal([]byte(s), &in); err != nil {
			return
		}
		r := Check(in)
		if r.Blocked != (r.Message != "") || r.Blocked != (r.Gate != NoGate) {
			t.Fatalf("incoherent result %+v", r)
		}
		charged := 0
		for _, g := range []Name{ProcessGate, SubagentGate} {
			d := r.Injections[g] - in.Injections[g]
			if d < 0 || d > 1 || (d == 1 && g != r.Gate) {
				t.Fatalf("gate %s charged %d by a result for %s", g, d, r.Gate)
			}
			charged += d
		}
		if r.Blocked != (charged == 1) {
			t.Fatalf("blocked %t but charged %d", r.Blocked, charged)
		}
		if r.Blocked {
			for _, id := range r.Unresolved {
				if !strings.Contains(r.Message, id) {
					t.Fatalf("message does not name %q:\n%s", id, r.Message)
				}
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}

func TestInjectionsJSON(t *testing.T) {
	var zero Injections
	if b, _ := json.Marshal(zero); string(b) != `{"processes":0,"subagents":0}` {
		t.Errorf("no counts encode as %s", b)
	}
	var in Injections
	if err := json.Unmarshal([]byte(`{"processes":2}`), &in); err != nil || in[ProcessGate] != 2 {
		t.Errorf("decoded %v, %v", in, err)
	}
	for _, bad := range []string{`{"processes":-1}`, `{"processes":1.5}`, `{"processes":"1"}`, `[1]`, `"x"`} {
		var x Injections
		if err := json.Unmarshal([]byte(bad), &x); !errors.Is(err, ErrInvalidInjections) {
			t.Errorf("%s: err = %v, want ErrInvalidInjections", bad, err)
		}
	}
}

// TestCheckLeavesInputAlone: the counts a Check returns are its own map.
func TestCheckLeavesInputAlone(t *testing.T) {
	in := Input{Subagents: []Subagent{{ID: "a", Status: StatusRunning}}, Injections: Injections{SubagentGate: 1}}
	r := Check(in)
	if !r.Blocked || r.Injections[SubagentGate] != 2 || in.Injections[SubagentGate] != 1 {
		t.Errorf("result %v, input %v", r.Injections, in.Injections)
	}
}
