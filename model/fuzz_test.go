package model

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// addFixtures adds every file under testdata/dir to f's seed corpus.
func addFixtures(f *testing.F, dirs ...string) {
	f.Helper()
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil || len(paths) == 0 {
			f.Fatalf("no fixtures in testdata/%s: %v", dir, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// FuzzParseChatCompletion feeds chat-completions bodies to the parser: it must never panic,
// and a body it accepts yields text without a leading think block.
func FuzzParseChatCompletion(f *testing.F) {
	addFixtures(f, "openai", "groq", "ollama", "openrouter", "gemini")
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"<think>"}]}}]}`))
	f.Add([]byte(`{"choices":[{}],"error":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseChatCompletion(body)
		if err == nil && strings.HasPrefix(strings.TrimSpace(res.text), "<think>") {
			t.Errorf("think block left in text %q", res.text)
		}
	})
}

// FuzzParseMessage feeds Messages API bodies to the parser: it must never panic.
func FuzzParseMessage(f *testing.F) {
	addFixtures(f, "anthropic")
	f.Add([]byte(`{"type":"message","content":null,"stop_reason":7}`))
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseMessage(body)
		if err != nil && res != (chatResult{}) {
			t.Errorf("error %v with a result %+v", err, res)
		}
		// The stream reader must never panic either; an error event keeps its data.
		sres, serr := parseMessageStream(body)
		if errors.Is(serr, errErrorBody) && sres.errData == "" {
			t.Errorf("an error event without its data: %+v", sres)
		}
	})
}

// FuzzParseCLIResult feeds CLI output to the parser and the error builder: neither may
// panic, and an accepted result is a result message.
func FuzzParseCLIResult(f *testing.F) {
	addFixtures(f, "claude-cli")
	f.Add([]byte(`[{"type":"result","is_error":true,"result":"API Error: 500 "}]`))
	f.Add([]byte(`{"type":"result","is_error":true,"errors":[{"x":1},"y"]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		res, err := parseCLIResult(out)
		if err != nil {
			return
		}
		if res.Type != "result" {
			t.Errorf("accepted a %q message", res.Type)
		}
		if !res.ok() && res.apiError() == nil {
			t.Error("failed result without an APIError")
		}
	})
}

// FuzzParse feeds model strings to Parse: it must never panic, and what it accepts round-trips
// through String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"openai:gpt-5-mini", "ollama:qwen3:8b", "openai-compatible:http://127.0.0.1:8080/v1#m",
		"claude-cli:haiku", "x", ":", "openai-compatible:#", "openrouter:a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(spec.String())
		if err != nil || again != spec {
			t.Errorf("Parse(%q) = %+v; Parse(String()) = %+v, %v", s, spec, again, err)
		}
	})
}

// FuzzRetryAfter feeds header values to the retry-hint reader: never negative, never a panic.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"20", "1.5", "-1", "Mon, 22 Sep 2025 10:00:30 GMT", "1e308", "NaN", ""} {
		f.Add(s, s)
	}
	now := time.Date(2025, 9, 22, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, after string) {
		h := http.Header{"Retry-After-Ms": {ms}, "Retry-After": {after}}
		if d := retryAfter(h, now); d < 0 {
			t.Errorf("retryAfter(%q, %q) = %v", ms, after, d)
		}
	})
}
