package model

import (
	"context"
	"testing"
)

// BenchmarkCompleteChat measures one chat-completions round trip against a loopback server:
// encoding, HTTP on a kept-alive connection, reading and parsing.
func BenchmarkCompleteChat(b *testing.B) {
	srv := newProvider(b, reply{status: 200, body: fixture(b, "openai/success.json")})
	c := newClient(b, "openai:gpt-5-mini", srv, "/v1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Complete(ctx, classifierRequest); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteMessages is the same round trip on the Anthropic Messages API.
func BenchmarkCompleteMessages(b *testing.B) {
	srv := newProvider(b, reply{status: 200, body: fixture(b, "anthropic/success.json")})
	c := newClient(b, "anthropic:claude-haiku-4-5", srv, "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Complete(ctx, classifierRequest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseChatCompletion(b *testing.B) {
	body := fixture(b, "openai/success.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseChatCompletion(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCLIResult(b *testing.B) {
	out := fixture(b, "claude-cli/success.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseCLIResult(out); err != nil {
			b.Fatal(err)
		}
	}
}
