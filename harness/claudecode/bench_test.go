package claudecode

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
)

// largest is the largest real session in the shared data (3.4 MB, 1,400 lines).
const largest = "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"

// BenchmarkClaudeCode is one whole hook invocation in-process on the largest real session:
// decoding, reading the transcript, converting, deciding, the state file.
func BenchmarkClaudeCode(b *testing.B) {
	path := sharedFile(b, largest)
	opts := &Options{StateDir: b.TempDir(), Now: func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) }}
	var out bytes.Buffer
	n := 0
	for b.Loop() {
		// A session of its own each time, so every invocation starts from an unspent budget
		// and answers with a nudge.
		n++
		payload := fmt.Sprintf(`{"session_id":"bench-%d","transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false,`+
			`"last_assistant_message":"I fixed the parser. Let me run the tests.","background_tasks":[],"session_crons":[]}`, n, path)
		out.Reset()
		ClaudeCode(context.Background(), strings.NewReader(payload), &out, io.Discard, opts)
		if out.Len() == 0 {
			b.Fatal("no answer")
		}
	}
}

// BenchmarkClaudeCodeTurn is the conversion alone, on the largest real session already read.
func BenchmarkClaudeCodeTurn(b *testing.B) {
	s, err := transcript.ReadFile(sharedFile(b, largest), nil)
	if err != nil {
		b.Fatal(err)
	}
	p := Payload{SessionID: s.ID, LastAssistantMessage: ptr("Done."), BackgroundTasks: []BackgroundTask{{ID: "b1", Type: "shell", Status: "running"}}}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var t stopgate.Turn
	for b.Loop() {
		t = Turn(p, s, now)
	}
	if t.Message == nil {
		b.Fatal("no message")
	}
}

func BenchmarkDecodePayload(b *testing.B) {
	in := payloadSeeds[1]
	for b.Loop() {
		if _, err := DecodePayload(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
