package chat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadGemini checks that no input makes ReadGemini panic or fail, and that the session it
// builds holds together: unique message ids, bounds kept, a shell for every id once.
func FuzzReadGemini(f *testing.F) {
	real, err := os.ReadFile(filepath.Join("..", "testdata", "gemini", "session-0.61.0.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	for _, s := range []string{
		"",
		"\n",
		"{\n",
		"{\n  \"sessionId\": \"s\",\n  \"messages\": [{\"id\": \"a\", \"type\": \"user\", \"content\": \"hi\"}]\n}\n",
		`{"sessionId":"s","projectHash":"h"}` + "\n" + `{"$rewindTo":"x"}` + "\n" + `{"$set":{"messages":[{"id":"a"},{"id":"a"}]}}`,
		`{"id":"m","type":"gemini","content":[[{"text":"x"}]],"toolCalls":[{"name":"write_todos","args":{"todos":[{"status":7}]}}]}`,
		`{"id":"m","type":"gemini","toolCalls":[{"name":"run_shell_command","status":"success","result":"Command moved to background (PID: 12)"},` +
			`{"name":"list_background_processes","status":"success","result":[{"text":"- [PID 12] EXITED: ` + "`x`" + ` (Exit Code: 99999999999999999999)"}]},` +
			`{"name":"read_background_output","args":{"pid":"12"},"status":"success"}]}`,
		`{"$set":null}` + "\n" + `{"$set":{"messages":null,"directories":"x"}}` + "\n" + `{"id":"a","timestamp":5,"tokens":[],"thoughts":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxResult = 256
		s, err := ReadGemini(bytes.NewReader(data), &Options{MaxLineBytes: 1 << 16, MaxResultBytes: maxResult, MaxMalformed: 4})
		if err != nil {
			t.Fatalf("ReadGemini of an in-memory reader failed: %v", err)
		}
		if s.MalformedCount < len(s.Malformed) || len(s.Malformed) > 4 {
			t.Errorf("malformed %d, kept %d", s.MalformedCount, len(s.Malformed))
		}
		if s.Lines > bytes.Count(data, []byte("\n"))+1 {
			t.Errorf("%d lines in %d newlines", s.Lines, bytes.Count(data, []byte("\n")))
		}
		validInput := utf8.Valid(data)
		seen := map[string]bool{}
		for _, m := range s.Messages {
			if seen[m.ID] {
				t.Errorf("message id %q twice", m.ID)
			}
			seen[m.ID] = true
			if m.Type == GeminiUser && len(m.Text) > maxResult {
				t.Errorf("user text of %d bytes over the limit", len(m.Text))
			}
			for _, c := range m.ToolCalls {
				if len(c.Result) > maxResult || (validInput && !utf8.ValidString(c.Result)) {
					t.Errorf("result %q over the limit or not UTF-8", c.Result)
				}
			}
		}
		shells := map[string]bool{}
		for _, sh := range s.Shells {
			if shells[sh.ID] || sh.ID == "" || strings.Trim(sh.ID, "0123456789") != "" {
				t.Errorf("shell id %q repeated, empty or not a pid", sh.ID)
			}
			shells[sh.ID] = true
			if !sh.ReadAt.IsZero() && (sh.Running() || sh.ReadAt.Before(sh.Finished)) {
				t.Errorf("shell %s read at %v, before it was seen to end (%v, %s)", sh.ID, sh.ReadAt, sh.Finished, sh.Status)
			}
		}
	})
}
