package model

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
)

// Options configures [New]. A nil *Options and the zero Options both mean: the process
// environment, [http.DefaultClient], the provider's usual base URL, and claude on PATH.
type Options struct {
	// HTTPClient makes the HTTP calls; nil means http.DefaultClient. The call's deadline is
	// the context's; a Timeout on the client applies as well.
	HTTPClient *http.Client
	// Getenv reads API keys and base URLs; nil means os.Getenv. Tests and embedders that
	// keep configuration elsewhere pass their own.
	Getenv func(string) string
	// BaseURL, when set, replaces the provider's base URL, whatever the environment or the
	// spec says. It has the same form as the provider's base-URL variable: the URL that
	// "/chat/completions" is appended to for OpenAI-compatible providers, the URL that
	// "/v1/messages" is appended to for Anthropic. It is ignored for claude-cli.
	BaseURL string
	// CLIPath is the claude executable for claude-cli specs; empty means "claude" looked up
	// on PATH when New is called.
	CLIPath string
}

// New resolves a model string (see [Parse]) to a Client.
//
// Keys come from the provider's usual environment variable:
//
//	openai      OPENAI_API_KEY                    base OPENAI_BASE_URL
//	anthropic   ANTHROPIC_API_KEY                 base ANTHROPIC_BASE_URL (without /v1)
//	groq        GROQ_API_KEY                      base GROQ_BASE_URL
//	openrouter  OPENROUTER_API_KEY                base OPENROUTER_BASE_URL
//	ollama      none                              host OLLAMA_HOST ("host", "host:port" or a URL)
//	gemini      GEMINI_API_KEY or GOOGLE_API_KEY  base GEMINI_BASE_URL
//	deepseek    DEEPSEEK_API_KEY                  base DEEPSEEK_BASE_URL
//	mistral     MISTRAL_API_KEY                   base MISTRAL_BASE_URL
//	xai         XAI_API_KEY                       base XAI_BASE_URL
//	openai-compatible  OPENAI_COMPATIBLE_API_KEY, optional; the base URL is in the spec
//	claude-cli  none (the CLI uses its own login)
//
// Every base-URL variable except ANTHROPIC_BASE_URL and OLLAMA_HOST is the URL that
// "/chat/completions" is appended to, as OPENAI_BASE_URL is. A missing key is an error
// wrapping [ErrMissingKey] that names the variable to set; a base URL that is not an absolute
// http(s) URL is an error wrapping [ErrBadSpec]. For claude-cli, an executable that cannot be
// found is an error wrapping [exec.ErrNotFound].
//
// New does no I/O beyond reading the environment (and, for claude-cli, looking the
// executable up); the first network call is the first Complete.
func New(spec string, opts *Options) (Client, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}

	switch s.Provider {
	case ProviderClaudeCLI:
		path := o.CLIPath
		if path == "" {
			path = "claude"
		}
		resolved, err := exec.LookPath(path)
		if err != nil {
			return nil, fmt.Errorf("model: %s: %w", s, err)
		}
		return &cliClient{path: resolved, model: s.Model}, nil

	case ProviderOpenAICompatible:
		base, err := checkBase(s, "spec", cmp.Or(o.BaseURL, s.BaseURL))
		if err != nil {
			return nil, err
		}
		ep := endpoint{http: hc, provider: s.Provider, model: s.Model, url: base + "/chat/completions"}
		if key := getenv("OPENAI_COMPATIBLE_API_KEY"); key != "" {
			ep.header = http.Header{"Authorization": {"Bearer " + key}}
		}
		return &chatClient{endpoint: ep, maxTokensField: fieldMaxTokens, effort: true}, nil
	}

	p, _ := lookupProvider(s.Provider) // Parse accepted it, so it is in the table.
	base, from := p.baseURL, "default"
	if v := getenv(p.baseEnv); v != "" {
		base, from = v, p.baseEnv
		if p.name == "ollama" {
			base = ollamaBase(v)
		}
	}
	if o.BaseURL != "" {
		base, from = o.BaseURL, "Options.BaseURL"
	}
	if base, err = checkBase(s, from, base); err != nil {
		return nil, err
	}
	var key string
	for _, env := range p.keyEnvs {
		if key = getenv(env); key != "" {
			break
		}
	}
	if len(p.keyEnvs) > 0 && key == "" {
		return nil, fmt.Errorf("model: %s: set %s: %w", s, strings.Join(p.keyEnvs, " or "), ErrMissingKey)
	}

	ep := endpoint{http: hc, provider: p.name, model: s.Model}
	if p.wire == wireMessages {
		ep.url = base + "/v1/messages"
		ep.header = http.Header{"X-Api-Key": {key}, "Anthropic-Version": {anthropicVersion}}
		return &messagesClient{endpoint: ep}, nil
	}
	ep.url = base + "/chat/completions"
	if key != "" {
		ep.header = http.Header{"Authorization": {"Bearer " + key}}
	}
	return &chatClient{endpoint: ep, maxTokensField: p.maxTokensField, effort: p.effort}, nil
}

// checkBase validates a base URL and strips its trailing slashes.
func checkBase(s Spec, from, base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("model: %s: base URL from %s is not an absolute http(s) URL: %w", s.Provider, from, ErrBadSpec)
	}
	return strings.TrimRight(base, "/"), nil
}

// ollamaBase turns an OLLAMA_HOST value into the base of Ollama's OpenAI-compatible endpoint,
// reading it the way Ollama does: no scheme means http, and then no port means 11434 and no
// host means 127.0.0.1; a URL with a scheme is taken as it is. A path is kept either way.
func ollamaBase(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if strings.Contains(host, "://") {
		return host + "/v1"
	}
	hostport, path, _ := strings.Cut(host, "/")
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		h, port = strings.Trim(hostport, "[]"), "11434"
	}
	if h == "" {
		h = "127.0.0.1"
	}
	hostport = net.JoinHostPort(h, port)
	if path != "" {
		path = "/" + path
	}
	return "http://" + hostport + path + "/v1"
}
