package model

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fixture returns the bytes of testdata/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reply is one scripted answer of a test server.
type reply struct {
	status int
	header map[string]string
	body   []byte
}

// received is one request a test server saw.
type received struct {
	method, path string
	header       http.Header
	body         map[string]any
}

// provider is a loopback server that answers with scripted replies, in order (the last one
// repeats), and records what it received.
type provider struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	seen    []received
}

func newProvider(t testing.TB, replies ...reply) *provider {
	t.Helper()
	p := &provider{replies: replies}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	p.mu.Lock()
	p.seen = append(p.seen, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body})
	rep := p.replies[min(len(p.seen), len(p.replies))-1]
	p.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
}

// requests returns what the server received so far.
func (p *provider) requests() []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]received(nil), p.seen...)
}

// env returns a Getenv reading from m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// testKeys sets every provider's key variable.
var testKeys = map[string]string{
	"OPENAI_API_KEY":     "sk-test-openai",
	"ANTHROPIC_API_KEY":  "sk-ant-test",
	"GROQ_API_KEY":       "gsk_test",
	"OPENROUTER_API_KEY": "sk-or-test",
	"GEMINI_API_KEY":     "gemini-test",
	"DEEPSEEK_API_KEY":   "sk-deepseek-test",
	"MISTRAL_API_KEY":    "mistral-test",
	"XAI_API_KEY":        "xai-test",
}

// newClient resolves spec against srv with the test keys; base is the path on srv that
// stands for the provider's base URL.
func newClient(t testing.TB, spec string, srv *provider, base string) Client {
	t.Helper()
	c, err := New(spec, &Options{HTTPClient: srv.Client(), Getenv: env(testKeys), BaseURL: srv.URL + base})
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	return c
}
