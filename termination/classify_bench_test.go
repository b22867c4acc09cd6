package termination

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
)

// clsBenchMix is a realistic mix of the errors a model call ends on: rate limits, overflow
// bodies, provider faults, transport failures, as providers and net/http produce them.
func clsBenchMix(b *testing.B) []error {
	b.Helper()
	fixtures := map[string]clsFixture{}
	for _, f := range clsReadFixtures(b) {
		fixtures[f.name] = f
	}
	parsed := func(name string) error {
		f, ok := fixtures[name]
		if !ok {
			b.Fatalf("no fixture %q", name)
		}
		return fmt.Errorf("model call: %w", ParseErrorBody(f.provider, f.status, f.body))
	}
	endpoint := "https://api.openai.com/v1/chat/completions"
	return []error{
		parsed("groq-tpm"),
		parsed("openai-rpm"),
		parsed("anthropic-rate-limit"),
		parsed("gemini-quota-minute"),
		parsed("openai-insufficient-quota"),
		parsed("openai-overflow"),
		parsed("anthropic-overflow"),
		parsed("gemini-overflow"),
		parsed("openrouter-openai"),
		parsed("groq-tpm-too-large"),
		parsed("anthropic-overloaded"),
		parsed("openai-server-error"),
		parsed("plain-bad-gateway"),
		&url.Error{Op: "Post", URL: endpoint, Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
		&url.Error{Op: "Post", URL: endpoint, Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
		fmt.Errorf("reading response body: %w", io.ErrUnexpectedEOF),
		&url.Error{Op: "Post", URL: endpoint, Err: context.DeadlineExceeded},
		fmt.Errorf("turn: %w", context.Canceled),
		errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer"),
		Attach(errors.New("rejected"), New(SiteModelCall, SourceException, Classification{Category: InvalidRequest})),
	}
}

// BenchmarkClassify classifies the mix round-robin: ns/op is per error.
func BenchmarkClassify(b *testing.B) {
	mix := clsBenchMix(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Classify(mix[i%len(mix)])
		i++
	}
}

// BenchmarkClassifyEach reports each error of the mix on its own.
func BenchmarkClassifyEach(b *testing.B) {
	for i, err := range clsBenchMix(b) {
		b.Run(fmt.Sprintf("%02d-%s", i, Classify(err).Category), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Classify(err)
			}
		})
	}
}

// BenchmarkParseErrorBody parses the fixture corpus round-robin: ns/op is per body.
func BenchmarkParseErrorBody(b *testing.B) {
	fixtures := clsReadFixtures(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		f := fixtures[i%len(fixtures)]
		ParseErrorBody(f.provider, f.status, f.body)
		i++
	}
}

// BenchmarkClassifyBody is a provider error end to end, as a model call meets it: its body read
// by ParseErrorBody, then classified. ns/op is per body of the fixture corpus, round-robin.
func BenchmarkClassifyBody(b *testing.B) {
	fixtures := clsReadFixtures(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		f := fixtures[i%len(fixtures)]
		Classify(ParseErrorBody(f.provider, f.status, f.body))
		i++
	}
}
