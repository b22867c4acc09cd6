package claudecode

import (
	"errors"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDecodePayload(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Payload
	}{
		{
			name: "the 2025 minimal payload",
			in:   `{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/x/abc123.jsonl","stop_hook_active":false}`,
			want: Payload{SessionID: "abc123", TranscriptPath: "/home/u/.claude/projects/x/abc123.jsonl"},
		},
		{
			name: "the documented Stop payload",
			in: `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"default",
				"hook_event_name":"Stop","stop_hook_active":true,"prompt_id":"p1",
				"last_assistant_message":"I've completed the refactoring.",
				"background_tasks":[{"id":"task-001","type":"shell","status":"running","description":"tail logs","command":"tail -f /var/log/syslog"}],
				"session_crons":[{"id":"cron-001","schedule":"0 9 * * 1-5","recurring":true,"prompt":"check the build"}],
				"effort":{"level":"high"}}`,
			want: Payload{
				SessionID: "abc123", TranscriptPath: "/t.jsonl", CWD: "/w", PermissionMode: "default",
				HookEventName: "Stop", StopHookActive: true, PromptID: "p1",
				LastAssistantMessage: ptr("I've completed the refactoring."),
				BackgroundTasks:      []BackgroundTask{{ID: "task-001", Type: "shell", Status: "running", Description: "tail logs", Command: "tail -f /var/log/syslog"}},
				SessionCrons:         []SessionCron{{ID: "cron-001", Schedule: "0 9 * * 1-5", Recurring: true, Prompt: "check the build"}},
				Effort:               &Effort{Level: "high"},
			},
		},
		{
			name: "a SubagentStop payload",
			in: `{"session_id":"s","transcript_path":"/p.jsonl","hook_event_name":"SubagentStop","stop_hook_active":false,
				"agent_id":"a1b2","agent_type":"Explore","agent_transcript_path":"/p/subagents/agent-a1b2.jsonl",
				"last_assistant_message":"Found it.","background_tasks":[{"id":"a9","type":"subagent","status":"running","agent_type":"general-purpose"}]}`,
			want: Payload{
				SessionID: "s", TranscriptPath: "/p.jsonl", HookEventName: "SubagentStop",
				AgentID: "a1b2", AgentType: "Explore", AgentTranscriptPath: "/p/subagents/agent-a1b2.jsonl",
				LastAssistantMessage: ptr("Found it."),
				BackgroundTasks:      []BackgroundTask{{ID: "a9", Type: "subagent", Status: "running", AgentType: "general-purpose"}},
			},
		},
		{
			name: "empty lists are reported, not absent",
			in:   `{"session_id":"s","background_tasks":[],"session_crons":[],"last_assistant_message":""}`,
			want: Payload{SessionID: "s", BackgroundTasks: []BackgroundTask{}, SessionCrons: []SessionCron{}, LastAssistantMessage: ptr("")},
		},
		{
			name: "null is absent",
			in:   `{"session_id":null,"background_tasks":null,"session_crons":null,"last_assistant_message":null,"effort":null,"stop_hook_active":null}`,
			want: Payload{},
		},
		{
			name: "the empty object",
			in:   ` {} `,
			want: Payload{},
		},
		{
			name: "unknown fields are ignored",
			in:   `{"session_id":"s","turn_id":"t1","model":"gpt-5","future":{"deep":[1,2,3]},"background_tasks":[{"id":"m1","type":"monitor","status":"running","server":"srv","tool":"watch","extra":true}]}`,
			want: Payload{SessionID: "s", BackgroundTasks: []BackgroundTask{{ID: "m1", Type: "monitor", Status: "running", Server: "srv", Tool: "watch"}}},
		},
		{
			name: "a field of the wrong type is read as absent and named",
			in:   `{"session_id":"s","stop_hook_active":"true","last_assistant_message":42,"session_crons":{"id":"c"},"cwd":["/w"]}`,
			want: Payload{SessionID: "s", Ignored: []string{"cwd", "stop_hook_active", "last_assistant_message", "session_crons"}},
		},
		{
			name: "a bad list element keeps what decoded",
			in:   `{"background_tasks":[{"id":"b1","type":"shell","status":7},"junk",{"id":"b2","type":"shell","status":"running"}]}`,
			want: Payload{
				BackgroundTasks: []BackgroundTask{{ID: "b1", Type: "shell"}, {ID: "b2", Type: "shell", Status: "running"}},
				Ignored:         []string{"background_tasks[0]", "background_tasks[1]"},
			},
		},
		{
			name: "effort as a bare level",
			in:   `{"effort":"medium"}`,
			want: Payload{Effort: &Effort{Level: "medium"}},
		},
		{
			name: "effort of another shape",
			in:   `{"effort":3}`,
			want: Payload{Ignored: []string{"effort"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePayload(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("DecodePayload: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodePayloadErrors(t *testing.T) {
	for _, in := range []string{
		"", "   \n", "not json", `{"session_id":`, `[]`, `"a string"`, `42`, `null`, `{"a":1} {"b":2}`,
		strings.Repeat(" ", hookio.MaxPayloadBytes+1),
	} {
		_, err := DecodePayload(strings.NewReader(in))
		if !errors.Is(err, hookio.ErrPayload) {
			name := in
			if len(name) > 40 {
				name = name[:40] + "…"
			}
			t.Errorf("DecodePayload(%q) = %v, want an error wrapping hookio.ErrPayload", name, err)
		}
	}
}

func TestPayloadEvent(t *testing.T) {
	tests := []struct {
		p    Payload
		want string
	}{
		{Payload{HookEventName: "Stop"}, EventStop},
		{Payload{HookEventName: "SubagentStop"}, EventSubagentStop},
		{Payload{HookEventName: "PreToolUse", AgentTranscriptPath: "/a"}, "PreToolUse"},
		{Payload{AgentTranscriptPath: "/a.jsonl"}, EventSubagentStop},
		{Payload{AgentID: "a1"}, EventStop}, // an agent under --agent stops with Stop
		{Payload{}, EventStop},
	}
	for _, tt := range tests {
		if got := tt.p.Event(); got != tt.want {
			t.Errorf("%+v.Event() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestDecodeRecordedPayload decodes a real Stop payload, recorded from Claude Code 2.1.332 by
// the end-to-end tests (e2e/testdata, sanitized there), and checks every field it carries is
// read.
func TestDecodeRecordedPayload(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "e2e", "testdata", "claude-code-2.1.332-stop.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := DecodePayload(f)
	if err != nil {
		t.Fatal(err)
	}
	want := Payload{
		SessionID:            "00000000-0000-4000-8000-000000000001",
		TranscriptPath:       "/home/user/.claude/projects/-home-user-project/00000000-0000-4000-8000-000000000001.jsonl",
		CWD:                  "/home/user/project",
		PromptID:             "00000000-0000-4000-8000-000000000002",
		PermissionMode:       "bypassPermissions",
		Effort:               &Effort{Level: "medium"},
		HookEventName:        EventStop,
		LastAssistantMessage: ptr("The job is running in the background."),
		BackgroundTasks: []BackgroundTask{{
			ID: "brxv97l8j", Type: "shell", Status: "running", Description: "Run the job",
			Command: "until [ -e .release ]; do sleep 0.05; done; echo done-output; exit 3",
		}},
		SessionCrons: []SessionCron{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}
