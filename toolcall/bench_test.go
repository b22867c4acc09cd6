package toolcall

import (
	"strings"
	"testing"
)

func BenchmarkSalvage(b *testing.B) {
	benches := []struct{ name, body string }{
		{"marker", toolCall400(b, strings.Repeat(essay+"\n", 40)+followupTag)},
		{"real_tool", readBody(b, "groq_hermes_block_real_tool.txt")},
		{"python_repr", readBody(b, "groq_prose_answer.txt")},
		{"not_tools", readBody(b, "groq_history_tool_calls_property.txt")},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.body)))
			for b.Loop() {
				Salvage(400, bb.body, nil)
			}
		})
	}
}

func BenchmarkParseFallbackReply(b *testing.B) {
	tools := []Tool{{Name: "search"}, {Name: "suggest_followups"}}
	benches := []struct{ name, reply string }{
		{"plain", strings.Repeat("A plain answer with no calls at all. ", 40)},
		{"answer_and_marker", strings.Repeat("The answer. ", 40) + "\n\n```json\n" + `{"tool":"suggest_followups","arguments":{"followups":[{"prompt":"More?"},{"prompt":"Why?"}]}}` + "\n```"},
		{"repaired", `[{'tool': 'search', 'arguments': {'query': 'a', 'exact': True,},}, {'tool': 'search', 'arguments': {'query': 'b'}}]`},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.reply)))
			for b.Loop() {
				ParseFallbackReply(bb.reply, tools)
			}
		})
	}
}

func BenchmarkClassifyFailure(b *testing.B) {
	body := readBody(b, "ollama_openai_does_not_support_tools.json")
	b.ReportAllocs()
	for b.Loop() {
		ClassifyFailure(400, body)
	}
}

func BenchmarkLooksConfused(b *testing.B) {
	reply := "Sure, I can help you with suggestions and followups. Please provide me with more details so I can assist you better."
	b.ReportAllocs()
	for b.Loop() {
		LooksConfused(reply, nil)
	}
}

func BenchmarkFallbackPrompt(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		FallbackPrompt(sampleThread, sampleTools)
	}
}
