package model

import (
	"errors"
	"io/fs"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr error
	}{
		{in: "openai:gpt-5-mini", want: Spec{Provider: "openai", Model: "gpt-5-mini"}},
		{in: "anthropic:claude-haiku-4-5", want: Spec{Provider: "anthropic", Model: "claude-haiku-4-5"}},
		{in: "groq:llama-3.3-70b-versatile", want: Spec{Provider: "groq", Model: "llama-3.3-70b-versatile"}},
		{in: "openrouter:anthropic/claude-haiku-4.5", want: Spec{Provider: "openrouter", Model: "anthropic/claude-haiku-4.5"}},
		{in: "ollama:qwen3:8b", want: Spec{Provider: "ollama", Model: "qwen3:8b"}},
		{in: "gemini:gemini-2.5-flash", want: Spec{Provider: "gemini", Model: "gemini-2.5-flash"}},
		{in: "deepseek:deepseek-chat", want: Spec{Provider: "deepseek", Model: "deepseek-chat"}},
		{in: "mistral:mistral-small-latest", want: Spec{Provider: "mistral", Model: "mistral-small-latest"}},
		{in: "xai:grok-4-fast", want: Spec{Provider: "xai", Model: "grok-4-fast"}},
		{in: "claude-cli:haiku", want: Spec{Provider: "claude-cli", Model: "haiku"}},
		{in: "  openai:gpt-5-mini\n", want: Spec{Provider: "openai", Model: "gpt-5-mini"}},
		{in: "openai-compatible:http://127.0.0.1:8080/v1#my-model",
			want: Spec{Provider: "openai-compatible", Model: "my-model", BaseURL: "http://127.0.0.1:8080/v1"}},
		{in: "openai-compatible:https://llm.internal/v1/#org/model:q4#x",
			want: Spec{Provider: "openai-compatible", Model: "org/model:q4#x", BaseURL: "https://llm.internal/v1"}},

		{in: "", wantErr: ErrBadSpec},
		{in: "gpt-5-mini", wantErr: ErrBadSpec},
		{in: ":gpt-5-mini", wantErr: ErrBadSpec},
		{in: "openai:", wantErr: ErrBadSpec},
		{in: "claude-cli:", wantErr: ErrBadSpec},
		{in: "openai-compatible:http://127.0.0.1:8080/v1", wantErr: ErrBadSpec},
		{in: "openai-compatible:http://127.0.0.1:8080/v1#", wantErr: ErrBadSpec},
		{in: "openai-compatible:127.0.0.1:8080/v1#m", wantErr: ErrBadSpec},
		{in: "openai-compatible:ftp://host/v1#m", wantErr: ErrBadSpec},
		{in: "openai-compatible:http:///v1#m", wantErr: ErrBadSpec},
		{in: "http://127.0.0.1:8080/v1#m", wantErr: ErrUnknownProvider},
		{in: "bedrock:claude", wantErr: ErrUnknownProvider},
		{in: "OpenAI:gpt-5-mini", wantErr: ErrUnknownProvider},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			again, err := Parse(got.String())
			if err != nil || again != got {
				t.Fatalf("Parse(%q.String() = %q) = %+v, %v; want the same spec", tt.in, got.String(), again, err)
			}
		})
	}
}

func TestParseUnknownProviderListsKnown(t *testing.T) {
	_, err := Parse("bedrock:claude")
	for _, name := range Providers() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list provider %q", err, name)
		}
	}
}

func TestProvidersAllParse(t *testing.T) {
	names := Providers()
	for _, want := range []string{"openai", "anthropic", "groq", "openrouter", "ollama", "gemini", "deepseek", "mistral", "xai", "openai-compatible", "claude-cli"} {
		if !slices.Contains(names, want) {
			t.Errorf("Providers() = %v, missing %q", names, want)
		}
	}
	for _, name := range names {
		spec := name + ":m"
		if name == ProviderOpenAICompatible {
			spec = name + ":http://h/v1#m"
		}
		if _, err := Parse(spec); err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
		}
	}
}

func TestNewResolvesEndpoint(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		env      map[string]string
		baseURL  string
		wantURL  string
		wantAuth string // Authorization, or X-Api-Key for anthropic
	}{
		{name: "openai default", spec: "openai:gpt-5-mini", env: map[string]string{"OPENAI_API_KEY": "k"},
			wantURL: "https://api.openai.com/v1/chat/completions", wantAuth: "Bearer k"},
		{name: "openai env base", spec: "openai:gpt-5-mini", env: map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://proxy.example/v1/"},
			wantURL: "https://proxy.example/v1/chat/completions", wantAuth: "Bearer k"},
		{name: "options beat env", spec: "openai:gpt-5-mini", env: map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://proxy.example/v1"},
			baseURL: "http://127.0.0.1:9/v1", wantURL: "http://127.0.0.1:9/v1/chat/completions", wantAuth: "Bearer k"},
		{name: "anthropic default", spec: "anthropic:claude-haiku-4-5", env: map[string]string{"ANTHROPIC_API_KEY": "a"},
			wantURL: "https://api.anthropic.com/v1/messages", wantAuth: "a"},
		{name: "anthropic env base", spec: "anthropic:claude-haiku-4-5", env: map[string]string{"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "https://gw.example"},
			wantURL: "https://gw.example/v1/messages", wantAuth: "a"},
		{name: "groq", spec: "groq:llama-3.3-70b-versatile", env: map[string]string{"GROQ_API_KEY": "g"},
			wantURL: "https://api.groq.com/openai/v1/chat/completions", wantAuth: "Bearer g"},
		{name: "openrouter", spec: "openrouter:anthropic/claude-haiku-4.5", env: map[string]string{"OPENROUTER_API_KEY": "o"},
			wantURL: "https://openrouter.ai/api/v1/chat/completions", wantAuth: "Bearer o"},
		{name: "gemini key", spec: "gemini:gemini-2.5-flash", env: map[string]string{"GEMINI_API_KEY": "gm", "GOOGLE_API_KEY": "go"},
			wantURL: "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", wantAuth: "Bearer gm"},
		{name: "gemini google key", spec: "gemini:gemini-2.5-flash", env: map[string]string{"GOOGLE_API_KEY": "go"},
			wantURL: "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", wantAuth: "Bearer go"},
		{name: "deepseek", spec: "deepseek:deepseek-chat", env: map[string]string{"DEEPSEEK_API_KEY": "d"},
			wantURL: "https://api.deepseek.com/chat/completions", wantAuth: "Bearer d"},
		{name: "mistral", spec: "mistral:mistral-small-latest", env: map[string]string{"MISTRAL_API_KEY": "m"},
			wantURL: "https://api.mistral.ai/v1/chat/completions", wantAuth: "Bearer m"},
		{name: "xai", spec: "xai:grok-4-fast", env: map[string]string{"XAI_API_KEY": "x"},
			wantURL: "https://api.x.ai/v1/chat/completions", wantAuth: "Bearer x"},
		{name: "ollama default", spec: "ollama:qwen3:8b",
			wantURL: "http://127.0.0.1:11434/v1/chat/completions"},
		{name: "ollama host", spec: "ollama:qwen3:8b", env: map[string]string{"OLLAMA_HOST": "gpu-box:11500"},
			wantURL: "http://gpu-box:11500/v1/chat/completions"},
		{name: "compatible", spec: "openai-compatible:http://127.0.0.1:8080/v1#m",
			wantURL: "http://127.0.0.1:8080/v1/chat/completions"},
		{name: "compatible key", spec: "openai-compatible:http://127.0.0.1:8080/v1#m", env: map[string]string{"OPENAI_COMPATIBLE_API_KEY": "c", "OPENAI_API_KEY": "not-sent"},
			wantURL: "http://127.0.0.1:8080/v1/chat/completions", wantAuth: "Bearer c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.spec, &Options{Getenv: env(tt.env), BaseURL: tt.baseURL})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			var ep endpoint
			var auth string
			switch c := c.(type) {
			case *chatClient:
				ep, auth = c.endpoint, c.header.Get("Authorization")
			case *messagesClient:
				ep, auth = c.endpoint, c.header.Get("X-Api-Key")
				if v := c.header.Get("Anthropic-Version"); v != "2023-06-01" {
					t.Errorf("anthropic-version = %q, want 2023-06-01", v)
				}
			default:
				t.Fatalf("New returned %T", c)
			}
			if ep.url != tt.wantURL {
				t.Errorf("url = %q, want %q", ep.url, tt.wantURL)
			}
			if auth != tt.wantAuth {
				t.Errorf("auth = %q, want %q", auth, tt.wantAuth)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		env     map[string]string
		opts    Options
		wantErr error
		naming  []string // what the message must name
	}{
		{name: "openai key", spec: "openai:gpt-5-mini", wantErr: ErrMissingKey, naming: []string{"OPENAI_API_KEY"}},
		{name: "anthropic key", spec: "anthropic:claude-haiku-4-5", wantErr: ErrMissingKey, naming: []string{"ANTHROPIC_API_KEY"}},
		{name: "groq key", spec: "groq:llama-3.3-70b-versatile", wantErr: ErrMissingKey, naming: []string{"GROQ_API_KEY"}},
		{name: "openrouter key", spec: "openrouter:x/y", wantErr: ErrMissingKey, naming: []string{"OPENROUTER_API_KEY"}},
		{name: "gemini key", spec: "gemini:gemini-2.5-flash", wantErr: ErrMissingKey, naming: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
		{name: "deepseek key", spec: "deepseek:deepseek-chat", wantErr: ErrMissingKey, naming: []string{"DEEPSEEK_API_KEY"}},
		{name: "mistral key", spec: "mistral:m", wantErr: ErrMissingKey, naming: []string{"MISTRAL_API_KEY"}},
		{name: "xai key", spec: "xai:grok-4-fast", wantErr: ErrMissingKey, naming: []string{"XAI_API_KEY"}},
		{name: "bad env base", spec: "openai:gpt-5-mini", env: map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "api.openai.com/v1"},
			wantErr: ErrBadSpec, naming: []string{"OPENAI_BASE_URL"}},
		{name: "bad option base", spec: "ollama:qwen3:8b", opts: Options{BaseURL: "localhost:11434"},
			wantErr: ErrBadSpec, naming: []string{"Options.BaseURL"}},
		{name: "bad spec", spec: "gpt-5-mini", wantErr: ErrBadSpec},
		{name: "unknown provider", spec: "bedrock:claude", wantErr: ErrUnknownProvider},
		{name: "cli not on PATH", spec: "claude-cli:haiku", opts: Options{CLIPath: "stopgate-no-such-claude"}, wantErr: exec.ErrNotFound},
		{name: "cli path missing", spec: "claude-cli:haiku", opts: Options{CLIPath: filepath.Join(t.TempDir(), "claude")}, wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Getenv = env(tt.env)
			c, err := New(tt.spec, &opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("New(%q) = %v, %v; want error %v", tt.spec, c, err, tt.wantErr)
			}
			for _, s := range tt.naming {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %s", err, s)
				}
			}
		})
	}
}

func TestNewNilOptions(t *testing.T) {
	// Nil options read the process environment.
	t.Setenv("OLLAMA_HOST", "gpu-box:11500")
	c, err := New("ollama:qwen3:8b", nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cc := c.(*chatClient)
	if cc.http != http.DefaultClient {
		t.Errorf("HTTP client = %p, want http.DefaultClient", cc.http)
	}
	if want := "http://gpu-box:11500/v1/chat/completions"; cc.url != want {
		t.Errorf("url = %q, want %q (from the process's OLLAMA_HOST)", cc.url, want)
	}
}

func TestOllamaBase(t *testing.T) {
	tests := []struct{ host, want string }{
		{"", "http://127.0.0.1:11434/v1"},
		{"0.0.0.0", "http://0.0.0.0:11434/v1"},
		{"gpu-box", "http://gpu-box:11434/v1"},
		{"gpu-box:8000", "http://gpu-box:8000/v1"},
		{":11500", "http://127.0.0.1:11500/v1"},
		{"[::1]", "http://[::1]:11434/v1"},
		{"[::1]:9000", "http://[::1]:9000/v1"},
		{"gpu-box:8000/ollama/", "http://gpu-box:8000/ollama/v1"},
		{"http://gpu-box", "http://gpu-box/v1"},
		{"https://ollama.example/", "https://ollama.example/v1"},
		{" https://ollama.example:8443/base ", "https://ollama.example:8443/base/v1"},
	}
	for _, tt := range tests {
		if got := ollamaBase(tt.host); got != tt.want {
			t.Errorf("ollamaBase(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}
