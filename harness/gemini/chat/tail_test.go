package chat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadTailResumesLongSession grows a session of 3,000 tool calls a few records at a time
// and checks that every read goes on from the last checkpoint: new messages after thousands
// were folded are never taken for updates of folded ones (which would read the file whole).
// An update of a folded message, and a rewind to one, are then read whole.
func TestReadTailResumesLongSession(t *testing.T) {
	g := newGeminiLog(t)
	g.user(0, "u0", "Do it all.")
	for i := range 3000 {
		g.model(float64(1+i), fmt.Sprintf("m%d", i), "", geminiCallSpec{id: fmt.Sprintf("c%d", i), name: GeminiToolShell, args: map[string]any{"command": "true"}, status: "success", output: "ok", sec: float64(1 + i)})
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ck []byte
	for i := 0; i < len(g.lines); i += 7 {
		for _, l := range g.lines[i:min(i+7, len(g.lines))] {
			if _, err := f.WriteString(l + "\n"); err != nil {
				t.Fatal(err)
			}
		}
		_, next, resumed, err := readTail(path, ck, nil)
		if err != nil || next == nil || (ck != nil && !resumed) {
			t.Fatalf("after line %d: err %v, checkpoint %d bytes, resumed %v", i, err, len(next), resumed)
		}
		ck = next
	}
	s, _, _, err := readTail(path, ck, nil)
	if err != nil || len(s.Messages) > 400 {
		t.Fatalf("%v: %d messages kept", err, len(s.Messages))
	}
	for _, tt := range []struct{ name, line string }{
		{"an update of a folded message", `{"id":"m5","timestamp":"` + g.ts(6) + `","type":"gemini","content":"changed"}`},
		{"a rewind to a folded message", `{"$rewindTo":"m5"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.jsonl")
			data := strings.Join(g.lines, "\n") + "\n"
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, ck, _, err := readTail(p, nil, nil)
			if err != nil || ck == nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data+tt.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, next, _, err := readTail(p, ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ReadGeminiFile(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if next != nil || len(got.Messages) != len(want.Messages) {
				t.Errorf("checkpoint %d bytes, %d messages; want a whole read of %d", len(next), len(got.Messages), len(want.Messages))
			}
		})
	}
}
