package model

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Sentinel errors of resolution. Parse and New wrap them with the offending value, so test for
// them with errors.Is.
var (
	// ErrBadSpec is returned (wrapped) for a model string that is not of the form
	// provider:model, or whose model or base URL is empty or malformed.
	ErrBadSpec = errors.New("malformed model spec")
	// ErrUnknownProvider is returned (wrapped) for a model string whose provider prefix names no
	// provider this package knows; the message lists the known ones.
	ErrUnknownProvider = errors.New("unknown model provider")
	// ErrMissingKey is returned (wrapped) by New when the provider needs an API key and none of
	// the environment variables it is read from is set; the message names them.
	ErrMissingKey = errors.New("missing API key")
)

// Provider names that need special handling outside the table of hosted providers.
const (
	// ProviderOpenAICompatible is a self-hosted or otherwise unlisted server speaking the
	// OpenAI chat-completions wire format at a base URL given in the spec.
	ProviderOpenAICompatible = "openai-compatible"
	// ProviderClaudeCLI is a Claude Code CLI sub-model run as a subprocess.
	ProviderClaudeCLI = "claude-cli"
)

// Spec is a parsed model string: which provider, which model, and for
// [ProviderOpenAICompatible] the server's base URL.
type Spec struct {
	// Provider is the provider name, one of [Providers].
	Provider string
	// Model is the provider's model identifier, passed through unchanged
	// ("gpt-5-mini", "qwen3:8b", "anthropic/claude-haiku-4.5", "haiku").
	Model string
	// BaseURL is the chat-completions base URL of an [ProviderOpenAICompatible] spec (the URL
	// that "/chat/completions" is appended to); empty for every other provider, whose base URL
	// comes from the environment or the provider's default.
	BaseURL string
}

// String returns the model string Parse reads back as s.
func (s Spec) String() string {
	if s.Provider == ProviderOpenAICompatible {
		return s.Provider + ":" + s.BaseURL + "#" + s.Model
	}
	return s.Provider + ":" + s.Model
}

// Parse reads a model string of the form provider:model. The provider is everything before the
// first colon, so a model name may itself contain colons ("ollama:qwen3:8b" is the model
// "qwen3:8b" on Ollama). The providers are:
//
//	openai:gpt-5-mini                        OpenAI chat completions
//	anthropic:claude-haiku-4-5               Anthropic Messages API
//	groq:llama-3.3-70b-versatile             Groq (OpenAI-compatible)
//	openrouter:anthropic/claude-haiku-4.5    OpenRouter (OpenAI-compatible)
//	ollama:qwen3:8b                          Ollama's OpenAI-compatible endpoint
//	gemini:gemini-2.5-flash                  Google's OpenAI-compatible Gemini endpoint
//	deepseek:deepseek-chat                   DeepSeek (OpenAI-compatible)
//	mistral:mistral-small-latest             Mistral (OpenAI-compatible)
//	xai:grok-4-fast                          xAI (OpenAI-compatible)
//	openai-compatible:URL#model              any other OpenAI-compatible server
//	claude-cli:haiku                         `claude -p --model haiku` as a subprocess
//
// In the openai-compatible form, URL is an absolute http or https URL that "/chat/completions"
// is appended to, and the model follows the first '#' (a URL fragment is never sent to a
// server, so '#' cannot be part of a base URL):
//
//	openai-compatible:http://127.0.0.1:8080/v1#my-model
//
// Parse checks only the form; [New] reads keys and base URLs from the environment. A string
// that is not provider:model, or has an empty model, is an error wrapping [ErrBadSpec]; an
// unrecognised provider is an error wrapping [ErrUnknownProvider].
func Parse(spec string) (Spec, error) {
	name, rest, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok || name == "" {
		return Spec{}, fmt.Errorf("model: %q: want provider:model: %w", spec, ErrBadSpec)
	}
	switch {
	case name == ProviderOpenAICompatible:
		base, model, ok := strings.Cut(rest, "#")
		if !ok || model == "" {
			return Spec{}, fmt.Errorf("model: %q: want %s:URL#model: %w", spec, ProviderOpenAICompatible, ErrBadSpec)
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Spec{}, fmt.Errorf("model: %q: base URL %q is not an absolute http(s) URL: %w", spec, base, ErrBadSpec)
		}
		return Spec{Provider: name, Model: model, BaseURL: strings.TrimRight(base, "/")}, nil
	case name == ProviderClaudeCLI, isHosted(name):
		if rest == "" {
			return Spec{}, fmt.Errorf("model: %q: empty model name: %w", spec, ErrBadSpec)
		}
		return Spec{Provider: name, Model: rest}, nil
	default:
		return Spec{}, fmt.Errorf("model: %q: provider %q (known: %s): %w",
			spec, name, strings.Join(Providers(), ", "), ErrUnknownProvider)
	}
}

// Providers lists the provider names Parse accepts, in a stable order.
func Providers() []string {
	names := make([]string, 0, len(hosted)+2)
	for _, p := range hosted {
		names = append(names, p.name)
	}
	return append(names, ProviderOpenAICompatible, ProviderClaudeCLI)
}

// wire is the protocol a provider speaks.
type wire int

const (
	wireChat     wire = iota // OpenAI chat completions
	wireMessages             // Anthropic Messages
)

// hostedProvider is one row of the provider table: everything New needs to reach a provider
// that has a well-known endpoint.
type hostedProvider struct {
	name string
	wire wire
	// baseURL is the default base: "/chat/completions" (chat) or "/v1/messages" (messages) is
	// appended to it.
	baseURL string
	// baseEnv names the environment variable that overrides baseURL; empty for none.
	baseEnv string
	// keyEnvs are the environment variables the key is read from, first set wins; empty when
	// the provider takes no key.
	keyEnvs []string
	// maxTokensField is the JSON field the output budget goes in (chat wire only).
	maxTokensField string
	// effort reports whether the provider's chat endpoint takes reasoning_effort.
	effort bool
}

// hosted is the provider table. It is read-only.
var hosted = []hostedProvider{
	{name: "openai", wire: wireChat, baseURL: "https://api.openai.com/v1", baseEnv: "OPENAI_BASE_URL",
		keyEnvs: []string{"OPENAI_API_KEY"}, maxTokensField: fieldMaxCompletionTokens, effort: true},
	{name: "anthropic", wire: wireMessages, baseURL: "https://api.anthropic.com", baseEnv: "ANTHROPIC_BASE_URL",
		keyEnvs: []string{"ANTHROPIC_API_KEY"}},
	{name: "groq", wire: wireChat, baseURL: "https://api.groq.com/openai/v1", baseEnv: "GROQ_BASE_URL",
		keyEnvs: []string{"GROQ_API_KEY"}, maxTokensField: fieldMaxCompletionTokens, effort: true},
	{name: "openrouter", wire: wireChat, baseURL: "https://openrouter.ai/api/v1", baseEnv: "OPENROUTER_BASE_URL",
		keyEnvs: []string{"OPENROUTER_API_KEY"}, maxTokensField: fieldMaxTokens, effort: true},
	{name: "ollama", wire: wireChat, baseURL: "http://127.0.0.1:11434/v1", baseEnv: "OLLAMA_HOST",
		maxTokensField: fieldMaxTokens, effort: true},
	{name: "gemini", wire: wireChat, baseURL: "https://generativelanguage.googleapis.com/v1beta/openai", baseEnv: "GEMINI_BASE_URL",
		keyEnvs: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, maxTokensField: fieldMaxTokens, effort: true},
	{name: "deepseek", wire: wireChat, baseURL: "https://api.deepseek.com", baseEnv: "DEEPSEEK_BASE_URL",
		keyEnvs: []string{"DEEPSEEK_API_KEY"}, maxTokensField: fieldMaxTokens},
	{name: "mistral", wire: wireChat, baseURL: "https://api.mistral.ai/v1", baseEnv: "MISTRAL_BASE_URL",
		keyEnvs: []string{"MISTRAL_API_KEY"}, maxTokensField: fieldMaxTokens},
	{name: "xai", wire: wireChat, baseURL: "https://api.x.ai/v1", baseEnv: "XAI_BASE_URL",
		keyEnvs: []string{"XAI_API_KEY"}, maxTokensField: fieldMaxCompletionTokens, effort: true},
}

// The two names the chat wire's output budget goes by.
const (
	fieldMaxCompletionTokens = "max_completion_tokens"
	fieldMaxTokens           = "max_tokens"
)

// lookupProvider returns a copy of the table row for name.
func lookupProvider(name string) (hostedProvider, bool) {
	i := slices.IndexFunc(hosted, func(p hostedProvider) bool { return p.name == name })
	if i < 0 {
		return hostedProvider{}, false
	}
	return hosted[i], true
}

// isHosted reports whether name is a row of the provider table.
func isHosted(name string) bool {
	_, ok := lookupProvider(name)
	return ok
}
