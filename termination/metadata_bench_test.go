package termination

import "testing"

// metaBenchMix is a realistic mix of fragments: a whole body or final event from each of the
// common providers, ordinary ends and interesting ones, plus a LangChain message and a
// streamed chunk with no reason yet (the commonest fragment of all).
func metaBenchMix(b *testing.B) []any {
	b.Helper()
	mix := []any{
		metaFixture(b, "openai_chat_completion.json"),
		metaFixture(b, "groq_chat_completion.json"),
		metaFixture(b, "openai_responses_incomplete.json"),
		metaFixture(b, "anthropic_message.json"),
		metaFixture(b, "gemini_generate_content.json"),
		metaFixture(b, "bedrock_converse.json"),
		metaFixture(b, "ollama_chat.json"),
		metaFixture(b, "cohere_v2_chat.json"),
		metaJSON(b, `{"content":"done","response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"STOP"}}`),
	}
	mix = append(mix, metaSSE(b, "anthropic_stream.sse")[5], metaSSE(b, "openai_chat_stream.sse")[1])
	return mix
}

func BenchmarkClassifyStop(b *testing.B) {
	mix := metaBenchMix(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ClassifyStop("", mix[i%len(mix)])
	}
}
