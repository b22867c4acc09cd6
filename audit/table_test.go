package audit

import (
	"testing"

	"github.com/stopgate/stopgate"
)

// TestLabel checks how the table names sessions.
func TestLabel(t *testing.T) {
	const id = "c0de0000-0000-4000-8000-000000000001"
	tests := []struct {
		name string
		s    SessionReport
		want string
	}{
		{"a Claude Code session named by its id", SessionReport{Path: "/p/" + id + ".jsonl", Session: id}, "c0de0000"},
		{"a sub-agent", SessionReport{Path: "/p/agent-a1.jsonl", Session: id, Agent: "a1"}, "c0de0000/a1"},
		{"a Codex rollout", SessionReport{Path: "/s/2026/03/02/rollout-2026-03-02T09-00-00-" + id + ".jsonl", Session: id}, "rollout-2026-03-02T09-00-00-c0de0000"},
		{"a Gemini CLI session", SessionReport{Path: "/t/chats/session-2026-03-03T09-00-c0de0000.jsonl", Session: id}, "session-2026-03-03T09-00-c0de0000"},
		{"a legacy Gemini CLI session", SessionReport{Path: "/t/chats/session-2026-03-03T09-00-c0de0000.json", Session: id}, "session-2026-03-03T09-00-c0de0000"},
		{"a trajectory", SessionReport{Path: "/r/demo__demo-1.traj.json", Session: "demo__demo-1"}, "demo__demo-1"},
		{"a file named otherwise", SessionReport{Path: "/h/stall.jsonl", Session: id}, "stall"},
		{"no session id", SessionReport{Path: "/h/stall.jsonl"}, "stall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := label(tt.s); got != tt.want {
				t.Errorf("label = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBlockColumns: every check that can hold a stop back has its column in the table, once;
// the pending-wake gate parks a run rather than blocking it, and has the PARKED column.
func TestBlockColumns(t *testing.T) {
	seen := map[stopgate.Check]int{}
	for _, c := range blockColumns {
		seen[c.check]++
	}
	for _, c := range stopgate.Checks() {
		want := 1
		if c == stopgate.CheckPendingWake {
			want = 0
		}
		if seen[c] != want {
			t.Errorf("check %s has %d column(s) in the table, want %d", c, seen[c], want)
		}
	}
	if len(blockColumns) != len(stopgate.Checks())-1 {
		t.Errorf("the table has %d block columns, want one per check but pending_wake (%d)", len(blockColumns), len(stopgate.Checks())-1)
	}
}

// TestLabels checks that the table's rows name distinct files distinctly: files of the same
// name in different directories (real session exports named full.jsonl, transcript.jsonl)
// are told apart by their directory under the audited root.
func TestLabels(t *testing.T) {
	const id = "c0de0000-0000-4000-8000-000000000001"
	tests := []struct {
		name string
		ss   []SessionReport
		want []string
	}{
		{"one file", []SessionReport{{Path: "/h/x/stall.jsonl"}}, []string{"stall"}},
		{"files of one name in two directories",
			[]SessionReport{{Path: "/h/a/full.jsonl"}, {Path: "/h/b/full.jsonl"}, {Path: "/h/b/c/transcript.jsonl"}},
			[]string{"a/full", "b/full", "b/c/transcript"}},
		{"a session and its sub-agent",
			[]SessionReport{{Path: "/p/proj/" + id + ".jsonl", Session: id}, {Path: "/p/proj/" + id + "/subagents/agent-a1.jsonl", Session: id, Agent: "a1"}, {Path: "/p/other/x.jsonl"}},
			[]string{"proj/c0de0000", "proj/c0de0000/a1", "other/x"}},
		{"a UUID directory is cut",
			[]SessionReport{{Path: "/t/" + id + "/chats/a.jsonl"}, {Path: "/t/b.jsonl"}},
			[]string{"c0de0000/chats/a", "b"}},
		{"ids sharing a first group fall back to the whole path",
			[]SessionReport{{Path: "/p/c0de0000-0000-4000-8000-000000000001.jsonl", Session: "c0de0000-0000-4000-8000-000000000001"}, {Path: "/p/c0de0000-0000-4000-8000-000000000002.jsonl", Session: "c0de0000-0000-4000-8000-000000000002"}},
			[]string{"c0de0000-0000-4000-8000-000000000001.jsonl", "c0de0000-0000-4000-8000-000000000002.jsonl"}},
		{"relative paths", []SessionReport{{Path: "logs/a/full.jsonl"}, {Path: "logs/b/full.jsonl"}}, []string{"a/full", "b/full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := labels(tt.ss)
			if len(got) != len(tt.want) {
				t.Fatalf("labels = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("labels = %q, want %q", got, tt.want)
					break
				}
			}
		})
	}
}
