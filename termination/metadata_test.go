package termination

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metaJSON decodes a JSON literal the way a caller's encoding/json would, so every fragment a
// test feeds the reader has a real decoded shape.
func metaJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("fixture %s: %v", s, err)
	}
	return v
}

// metaFixture decodes testdata/metadata/name.
func metaFixture(t testing.TB, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "metadata", name))
	if err != nil {
		t.Fatal(err)
	}
	return metaJSON(t, string(b))
}

// metaSSE returns the decoded data payloads of the SSE stream testdata/metadata/name, in order,
// leaving out the OpenAI [DONE] sentinel.
func metaSSE(t testing.TB, name string) []any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "metadata", name))
	if err != nil {
		t.Fatal(err)
	}
	var events []any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok || strings.TrimSpace(data) == "[DONE]" {
			continue
		}
		events = append(events, metaJSON(t, data))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

// stopCase is one fragment and what the feeders must say about it.
type stopCase struct {
	name     string
	provider string
	fragment string
	// want is ClassifyStop's answer; ok false means the fragment carries no stop signal.
	want Classification
	ok   bool
	// interesting is whether detectStop reports it (a classification worth acting on).
	interesting bool
}

// checkStop runs ClassifyStop and detectStop on tc.
func checkStop(t *testing.T, tc stopCase) {
	t.Helper()
	frag := metaJSON(t, tc.fragment)
	got, ok := ClassifyStop(tc.provider, frag)
	if ok != tc.ok || got != tc.want {
		t.Errorf("ClassifyStop(%q, %s) = %+v, %t; want %+v, %t", tc.provider, tc.fragment, got, ok, tc.want, tc.ok)
	}
	det, detOK := detectStop(tc.provider, frag)
	switch {
	case detOK != tc.interesting:
		t.Errorf("detectStop(%q, %s) ok = %t, want %t (%+v)", tc.provider, tc.fragment, detOK, tc.interesting, det)
	case detOK && det != tc.want:
		t.Errorf("detectStop(%q, %s) = %+v, want %+v", tc.provider, tc.fragment, det, tc.want)
	case !detOK && det != (Classification{}):
		t.Errorf("detectStop(%q, %s) = %+v with ok false, want the zero value", tc.provider, tc.fragment, det)
	}
}

func refusal(provider, detail string) Classification {
	return Classification{Category: ContentRefusal, Provider: provider, Detail: detail}
}

// TestRefusalVectors ports research 10.2's detectRefusal vectors. The origin's detectRefusal
// answers refusals only; here the same fragments go through ClassifyStop and detectStop, so
// the normal tokens it answered null for are checked to be no refusal (and length and
// max_tokens to be the truncation ClassifyStop makes of them).
func TestRefusalVectors(t *testing.T) {
	tests := []stopCase{
		{name: "finish_reason content_filter", fragment: `{"content":"","response_metadata":{"finish_reason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "content_filter under additional_kwargs", fragment: `{"content":"","additional_kwargs":{"finish_reason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "content_filter on a chunk", fragment: `{"type":"AIMessageChunk","content":"","response_metadata":{"finish_reason":"content_filter"},"tool_call_chunks":[]}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "camelCase finishReason content_filter", fragment: `{"response_metadata":{"finishReason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "stop_reason refusal", fragment: `{"response_metadata":{"stop_reason":"refusal"}}`,
			want: refusal("anthropic", "refusal"), ok: true, interesting: true},
		{name: "stopReason guardrail_intervened", fragment: `{"response_metadata":{"stopReason":"guardrail_intervened"}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "guardrail action in kwargs", fragment: `{"content":"blocked","additional_kwargs":{"amazon-bedrock-guardrailAction":"INTERVENED"}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "guardrail action in response_metadata", fragment: `{"response_metadata":{"amazon-bedrock-guardrailAction":"INTERVENED"}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "guardrail action is exact case", fragment: `{"additional_kwargs":{"amazon-bedrock-guardrailAction":"intervened"}}`},
		{name: "guardrail action NONE", fragment: `{"additional_kwargs":{"amazon-bedrock-guardrailAction":"NONE"}}`},
		{name: "stopReason content_filtered", fragment: `{"response_metadata":{"stopReason":"content_filtered"}}`,
			want: refusal("bedrock", "content_filtered"), ok: true, interesting: true},
		{name: "stop_reason content_filtered", fragment: `{"response_metadata":{"stop_reason":"content_filtered"}}`,
			want: refusal("bedrock", "content_filtered"), ok: true, interesting: true},
		{name: "finish_reason content_filtered", fragment: `{"response_metadata":{"finish_reason":"content_filtered"}}`,
			want: refusal("bedrock", "content_filtered"), ok: true, interesting: true},

		// Not messages, or messages with nothing to read.
		{name: "tool message", fragment: `{"type":"tool","content":"ok","tool_call_id":"call_1","name":"bash"}`},
		{name: "null", fragment: `null`},
		{name: "number", fragment: `42`},
		{name: "empty object", fragment: `{}`},
		{name: "null response_metadata", fragment: `{"response_metadata":null}`},
		{name: "numeric finish_reason out of the enum", fragment: `{"response_metadata":{"finish_reason":42}}`,
			want: Classification{Category: Unknown, Detail: "finish_reason_42"}, ok: true},
		{name: "object finish_reason", fragment: `{"response_metadata":{"finish_reason":{"type":"content_filter"}}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},

		// Gemini.
		{name: "Gemini kwargs finishReason content_filter", fragment: `{"additional_kwargs":{"finishReason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "finish_reason SAFETY", fragment: `{"response_metadata":{"finish_reason":"SAFETY"}}`,
			want: refusal("google", "safety"), ok: true, interesting: true},
		{name: "Gemini streamed shape", fragment: `{"content":"","response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"SAFETY","finishMessage":"The response was blocked."}}`,
			want: refusal("google", "safety"), ok: true, interesting: true},
		{name: "Gemini two chunks concatenated", fragment: `{"content":"I will not help with that.","response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"PROHIBITED_CONTENT"}}`,
			want: refusal("google", "prohibited_content"), ok: true, interesting: true},
	}
	for _, tok := range []string{"SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION",
		"prohibited-content", "image-safety", "image-prohibited-content", "image-recitation"} {
		tests = append(tests, stopCase{name: "Gemini " + tok, fragment: `{"additional_kwargs":{"finishReason":"` + tok + `"}}`,
			want: refusal("google", strings.ToLower(tok)), ok: true, interesting: true})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkStop(t, tc) })
	}

	// Normal tokens under both finish_reason and stop_reason are never a refusal.
	for _, tok := range []string{"stop", "tool_calls", "length", "end_turn", "max_tokens", "tool_use", "stop_sequence",
		"STOP", "TOOL_CALLS", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED", "OTHER"} {
		for _, key := range []string{"finish_reason", "stop_reason", "finishReason", "stopReason"} {
			frag := metaJSON(t, `{"response_metadata":{"`+key+`":"`+tok+`"}}`)
			c, ok := ClassifyStop("", frag)
			if !ok || c.Category == ContentRefusal {
				t.Errorf("%s %s: ClassifyStop = %+v, %t; want a token that is no refusal", key, tok, c, ok)
			}
			if d, ok := detectStop("", frag); ok && d.Category != OutputTruncated {
				t.Errorf("%s %s: detectStop = %+v; want nothing or a truncation", key, tok, d)
			}
		}
	}
}

func TestDetectStopVectors(t *testing.T) {
	truncated := func(provider, detail string) Classification {
		return Classification{Category: OutputTruncated, Provider: provider, Detail: detail}
	}
	tests := []stopCase{
		{name: "finish_reason length", fragment: `{"response_metadata":{"finish_reason":"length"}}`,
			want: truncated("", "length"), ok: true, interesting: true},
		{name: "stop_reason max_tokens", fragment: `{"response_metadata":{"stop_reason":"max_tokens"}}`,
			want: truncated("", "max_tokens"), ok: true, interesting: true},
		{name: "stopReason max_tokens", fragment: `{"response_metadata":{"stopReason":"max_tokens"}}`,
			want: truncated("", "max_tokens"), ok: true, interesting: true},
		{name: "finishReason MAX_TOKENS", fragment: `{"additional_kwargs":{"finishReason":"MAX_TOKENS"}}`,
			want: truncated("", "max_tokens"), ok: true, interesting: true},
		{name: "done_reason length", fragment: `{"response_metadata":{"done_reason":"length"}}`,
			want: truncated("", "length"), ok: true, interesting: true},
		{name: "kwargs finish_reason length", fragment: `{"additional_kwargs":{"finish_reason":"length"}}`,
			want: truncated("", "length"), ok: true, interesting: true},
		{name: "top-level finish_reason length", fragment: `{"finish_reason":"length"}`,
			want: truncated("", "length"), ok: true, interesting: true},
		{name: "maxtokens", fragment: `{"response_metadata":{"finish_reason":"maxTokens"}}`,
			want: truncated("", "maxtokens"), ok: true, interesting: true},
		// Mistral's model_length is the context window filling (length is max_tokens).
		{name: "Mistral model_length", fragment: `{"response_metadata":{"finish_reason":"model_length"}}`,
			want: Classification{Category: ContextOverflow, Detail: "model_length"}, ok: true, interesting: true},
		{name: "content_filter", fragment: `{"response_metadata":{"finish_reason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "stop", fragment: `{"response_metadata":{"finish_reason":"stop"}}`,
			want: Classification{Category: Completed, Detail: "stop"}, ok: true},
		{name: "tool_calls", fragment: `{"response_metadata":{"finish_reason":"tool_calls"}}`,
			want: Classification{Category: Completed, Detail: "tool_calls"}, ok: true},
		{name: "Gemini SAFETY", fragment: `{"response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"SAFETY"}}`,
			want: refusal("google", "safety"), ok: true, interesting: true},
		{name: "Gemini MAX_TOKENS stays a truncation", fragment: `{"response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"MAX_TOKENS"}}`,
			want: truncated("google", "max_tokens"), ok: true, interesting: true},
		{name: "Gemini STOP", fragment: `{"response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"STOP"}}`,
			want: Classification{Category: Completed, Provider: "google", Detail: "stop"}, ok: true},
		// LangChain adds a snake twin of Gemini's camelCase key; both carry the same token.
		{name: "Gemini camel and snake twins", fragment: `{"response_metadata":{"finishReason":"MAX_TOKENS","finish_reason":"MAX_TOKENS"}}`,
			want: truncated("", "max_tokens"), ok: true, interesting: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkStop(t, tc) })
	}
}

// TestGeminiRecordedStream ports the recorded Gemini vectors: the API sends camelCase only, and
// on a stream the reason rides on the last event alone.
func TestGeminiRecordedStream(t *testing.T) {
	events := metaSSE(t, "gemini_stream.sse")
	if len(events) != 3 {
		t.Fatalf("got %d events, want 3", len(events))
	}
	for i, ev := range events[:len(events)-1] {
		if tok, ok := readStopToken(ev); ok {
			t.Errorf("event %d: token %q, want none before the last event", i, tok)
		}
		if c, ok := ClassifyStop("google", ev); ok {
			t.Errorf("event %d: ClassifyStop = %+v, want no signal", i, c)
		}
	}
	last := events[len(events)-1]
	if tok, ok := readStopToken(last); !ok || tok != "max_tokens" {
		t.Errorf("last event: token %q, %t; want max_tokens", tok, ok)
	}
	want := Classification{Category: OutputTruncated, Provider: "google", Detail: "max_tokens"}
	if c, ok := detectStop("", last); !ok || c != want {
		t.Errorf("last event: detectStop = %+v, %t; want %+v", c, ok, want)
	}

	// The same last event ending on STOP: token stop, not truncated.
	stop := metaJSON(t, `{"candidates":[{"content":{"parts":[{"text":" the"}],"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.0-flash"}`)
	if tok, ok := readStopToken(stop); !ok || tok != "stop" {
		t.Errorf("STOP event: token %q, %t; want stop", tok, ok)
	}
	if c, ok := detectStop("", stop); ok {
		t.Errorf("STOP event: detectStop = %+v, want nothing", c)
	}
}

// TestReadStopToken covers the reading order: holder-major over response_metadata,
// additional_kwargs and the top level, then the provider shapes; lower-casing; and what is no
// token.
func TestReadStopToken(t *testing.T) {
	tests := []struct {
		name, fragment string
		want           string
		ok             bool
	}{
		{"holders before the top level", `{"response_metadata":{"stop_reason":"end_turn"},"finish_reason":"STOP"}`, "end_turn", true},
		{"response_metadata before additional_kwargs", `{"response_metadata":{"finish_reason":"a"},"additional_kwargs":{"finish_reason":"b"}}`, "a", true},
		{"additional_kwargs before top level", `{"additional_kwargs":{"finish_reason":"b"},"finish_reason":"c"}`, "b", true},
		{"finish_reason before finishReason", `{"finishReason":"b","finish_reason":"a"}`, "a", true},
		{"stop_reason before stopReason", `{"stopReason":"b","stop_reason":"a"}`, "a", true},
		{"stopReason before done_reason", `{"done_reason":"b","stopReason":"a"}`, "a", true},
		{"doneReason", `{"doneReason":"LENGTH"}`, "length", true},
		{"non-string skipped", `{"finish_reason":42,"stop_reason":"end_turn"}`, "end_turn", true},
		{"empty string skipped", `{"finish_reason":"","stop_reason":"end_turn"}`, "end_turn", true},
		{"null is no token", `{"finish_reason":null,"stop_reason":null}`, "", false},
		{"lower-cased", `{"finish_reason":"Max_Tokens"}`, "max_tokens", true},
		{"lower-cased beyond ASCII", `{"finish_reason":"ÉTAT"}`, "état", true},
		{"unknown token kept", `{"finish_reason":"sensitive_v2"}`, "sensitive_v2", true},

		{"Responses completed", `{"object":"response","status":"completed","incomplete_details":null}`, "completed", true},
		{"Responses incomplete reason", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"}}`, "content_filter", true},
		{"Responses incomplete without a reason", `{"object":"response","status":"incomplete","incomplete_details":null}`, "incomplete", true},
		{"Responses reason without object", `{"incomplete_details":{"reason":"max_output_tokens"}}`, "max_output_tokens", true},
		{"Responses in progress", `{"object":"response","status":"in_progress","incomplete_details":null}`, "", false},
		{"Responses queued", `{"object":"response","status":"queued"}`, "", false},
		{"Responses failed", `{"object":"response","status":"failed","error":{"code":"server_error","message":"boom"},"incomplete_details":null}`, "server_error", true},
		{"a status that is not a Responses object", `{"status":"completed"}`, "", false},
		{"a polled API object's status", `{"id":"job_1","status":"cancelled"}`, "cancelled", true},

		{"choices[0]", `{"choices":[{"index":0,"finish_reason":"stop"}]}`, "stop", true},
		{"streamed choices, first without a reason", `{"choices":[{"index":0,"finish_reason":null},{"index":1,"finish_reason":"length"}]}`, "length", true},
		{"choices that are not objects", `{"choices":["stop",1,null]}`, "", false},
		{"candidates[0]", `{"candidates":[{"index":0,"finishReason":"STOP"}]}`, "stop", true},
		{"candidate snake key", `{"candidates":[{"index":0,"finish_reason":"MAX_TOKENS"}]}`, "max_tokens", true},
		{"prompt block", `{"promptFeedback":{"blockReason":"SAFETY"}}`, "safety", true},
		{"prompt block, snake", `{"prompt_feedback":{"block_reason":"OTHER"}}`, "other", true},
		{"prompt feedback without a block", `{"promptFeedback":{"safetyRatings":[]}}`, "", false},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null}}`, "end_turn", true},
		{"Cohere message-end", `{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`, "complete", true},
		{"message_start", `{"type":"message_start","message":{"stop_reason":null}}`, "", false},
		{"Converse messageStop", `{"messageStop":{"stopReason":"end_turn"}}`, "end_turn", true},
		{"Responses stream event", `{"type":"response.incomplete","response":{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`, "max_output_tokens", true},
		{"top level before choices", `{"finish_reason":"a","choices":[{"finish_reason":"b"}]}`, "a", true},
		{"guardrail action", `{"amazon-bedrock-guardrailAction":"INTERVENED"}`, "guardrail_intervened", true},
		{"array", `[{"finish_reason":"stop"}]`, "stop", true},
		{"bare string", `"stop"`, "stop", true},
		{"null", `null`, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, ok := readStopToken(metaJSON(t, tc.fragment))
			if tok != tc.want || ok != tc.ok {
				t.Errorf("readStopToken(%s) = %q, %t; want %q, %t", tc.fragment, tok, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestClassifyStop covers what the vectors do not: weighing every token, the first token for an
// ordinary or unknown end, and where the provider comes from.
func TestClassifyStop(t *testing.T) {
	tests := []stopCase{
		// A benign token cannot hide a telling one.
		{name: "stopReason refusal behind a benign stop_reason", fragment: `{"response_metadata":{"stop_reason":"end_turn","stopReason":"refusal"}}`,
			want: refusal("anthropic", "refusal"), ok: true, interesting: true},
		{name: "content_filter behind a benign finish_reason in metadata", fragment: `{"response_metadata":{"finish_reason":"stop"},"additional_kwargs":{"finish_reason":"content_filter"}}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "refusal before truncation", fragment: `{"stop_reason":"max_tokens","stopReason":"refusal"}`,
			want: refusal("anthropic", "refusal"), ok: true, interesting: true},
		{name: "truncation behind a benign token", fragment: `{"finish_reason":"stop","done_reason":"length"}`,
			want: Classification{Category: OutputTruncated, Provider: "ollama", Detail: "length"}, ok: true, interesting: true},
		{name: "first refusal read among refusals", fragment: `{"response_metadata":{"finish_reason":"SAFETY","stop_reason":"refusal"}}`,
			want: refusal("google", "safety"), ok: true, interesting: true},
		{name: "first among equals", fragment: `{"finish_reason":"length","stop_reason":"max_tokens"}`,
			want: Classification{Category: OutputTruncated, Detail: "length"}, ok: true, interesting: true},
		{name: "a refusing choice", fragment: `{"choices":[{"index":0,"finish_reason":"stop"},{"index":1,"finish_reason":"content_filter"}]}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "InvokeModel guardrail action beside end_turn", fragment: `{"type":"message","stop_reason":"end_turn","amazon-bedrock-guardrailAction":"INTERVENED","content":[{"type":"text","text":"Blocked."}]}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},

		// The second held-out batch of stop payloads: shapes written here, after its misses.
		{name: "a guardrail that only masked text withheld nothing", fragment: `{"results":[{"completionReason":"FINISH"}],"amazon-bedrock-guardrailAction":"INTERVENED","amazon-bedrock-trace":{"guardrail":{"outputs":[{"g":{"sensitiveInformationPolicy":{"piiEntities":[{"type":"EMAIL","action":"ANONYMIZED"}]}}}]}}}`,
			want: Classification{Category: Completed, Provider: "bedrock", Detail: "finish"}, ok: true},
		{name: "a guardrail that blocked beside a mask is a refusal", fragment: `{"results":[{"completionReason":"FINISH"}],"amazon-bedrock-guardrailAction":"INTERVENED","amazon-bedrock-trace":{"guardrail":{"outputs":[{"g":{"sensitiveInformationPolicy":{"piiEntities":[{"action":"ANONYMIZED"}]},"topicPolicy":{"topics":[{"action":"BLOCKED"}]}}}]}}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "Gemini Live turn complete", fragment: `{"serverContent":{"turnComplete":true}}`,
			want: Classification{Category: Completed, Detail: "completed"}, ok: true},
		{name: "Gemini Live interrupted", fragment: `{"serverContent":{"interrupted":true}}`,
			want: Classification{Category: Cancelled, Detail: "interrupted"}, ok: true, interesting: true},
		{name: "an interrupted flag outside serverContent is no stop", fragment: `{"toolUseResult":{"interrupted":true,"stdout":""}}`},
		{name: "Gemini Live flags false are no stop", fragment: `{"serverContent":{"turnComplete":false,"modelTurn":{"parts":[{"text":"Hel"}]}}}`},
		{name: "an enum with its type's prefix", fragment: `{"outputs":[{"finish_reason":"REASON_MAX_CONTEXT"}]}`,
			want: Classification{Category: ContextOverflow, Detail: "reason_max_context"}, ok: true, interesting: true},
		// The fourth held-out batch of stop payloads: shapes written here, after its misses.
		{name: "Converse: a guardrail that only masked names let the answer through", fragment: `{"output":{"message":{"content":[{"text":"The capital of {ADDRESS} is {ADDRESS}."}],"role":"assistant"}},"stopReason":"guardrail_intervened","trace":{"guardrail":{"outputAssessments":{"g1":[{"sensitiveInformationPolicy":{"piiEntities":[{"action":"ANONYMIZED","match":"Rome","type":"ADDRESS"}]}}]}}}}`,
			want: Classification{Category: Completed, Provider: "bedrock", Detail: "completed"}, ok: true},
		{name: "Converse: a guardrail that blocked a topic", fragment: `{"output":{"message":{"content":[{"text":"Sorry."}],"role":"assistant"}},"stopReason":"guardrail_intervened","trace":{"guardrail":{"outputAssessments":{"g1":[{"topicPolicy":{"topics":[{"action":"BLOCKED","name":"Advice"}]}}]}}}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "Converse: a guardrail with no trace is a refusal", fragment: `{"output":{"message":{"content":[{"text":"Sorry."}]}},"stopReason":"guardrail_intervened"}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "ApplyGuardrail: intervened and blocked", fragment: `{"action":"GUARDRAIL_INTERVENED","assessments":[{"topicPolicy":{"topics":[{"action":"BLOCKED","name":"Investing"}]}}],"outputs":[{"text":"Sorry, the model cannot answer this question."}]}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "ApplyGuardrail: intervened only to mask", fragment: `{"action":"GUARDRAIL_INTERVENED","assessments":[{"sensitiveInformationPolicy":{"piiEntities":[{"action":"ANONYMIZED","type":"EMAIL"}]}}],"outputs":[{"text":"Mail {EMAIL}."}]}`},
		{name: "ApplyGuardrail: no action", fragment: `{"action":"NONE","assessments":[{}],"outputs":[]}`},
		{name: "Agents: a guardrail trace that intervened", fragment: `{"trace":{"guardrailTrace":{"action":"INTERVENED","inputAssessments":[{"contentPolicy":{"filters":[{"action":"BLOCKED","type":"PROMPT_ATTACK"}]}}]}}}`,
			want: refusal("bedrock", "guardrail_intervened"), ok: true, interesting: true},
		{name: "Agents: a guardrail trace with no action", fragment: `{"trace":{"guardrailTrace":{"action":"NONE","inputAssessments":[{}]}}}`},
		{name: "an INTERVENED action outside a guardrail trace is no stop", fragment: `{"type":"item","action":"INTERVENED"}`},
		{name: "Agents: the orchestration's final answer", fragment: `{"trace":{"orchestrationTrace":{"observation":{"finalResponse":{"text":"55"},"type":"FINISH"}}}}`,
			want: Classification{Category: Completed, Detail: "finish"}, ok: true},
		{name: "Agents: an action group's observation is no end", fragment: `{"trace":{"orchestrationTrace":{"observation":{"actionGroupInvocationOutput":{"text":"{}"},"type":"ACTION_GROUP"}}}}`},
		{name: "Responses: a completed message whose content is a refusal", fragment: `{"object":"response","status":"completed","output":[{"type":"message","status":"completed","content":[{"type":"refusal","refusal":"I cannot help with that."}],"role":"assistant"}]}`,
			want: refusal("openai", "refusal"), ok: true, interesting: true},
		{name: "Responses: a completed message with text", fragment: `{"object":"response","status":"completed","output":[{"type":"message","status":"completed","content":[{"type":"output_text","text":"Here it is."}],"role":"assistant"}]}`,
			want: Classification{Category: Completed, Provider: "openai", Detail: "completed"}, ok: true},

		// The seventh held-out batch of stop payloads: shapes written here, after its misses.
		{name: "a stream's delta.refusal is a refusal on its way, no end", fragment: `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"refusal":"I'm"},"finish_reason":null}]}`},
		{name: "a message's refusal is a refusal", fragment: `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`,
			want: refusal("openai", "refusal"), ok: true, interesting: true},
		{name: "Gemini NO_IMAGE: no image came", fragment: `{"candidates":[{"content":{},"finishReason":"NO_IMAGE","index":0}]}`,
			want: Classification{Category: EmptyResponse, Provider: "google", Detail: "no_image"}, ok: true, interesting: true},
		{name: "a Mistral batch out of time", fragment: `{"object":"batch","status":"TIMEOUT_EXCEEDED","completed_at":2}`,
			want: Classification{Category: Timeout, Detail: "timeout_exceeded"}, ok: true, interesting: true},
		{name: "a Mistral batch with a cancel asked for", fragment: `{"object":"batch","status":"CANCELLATION_REQUESTED","completed_at":null}`,
			want: Classification{Category: Cancelled, Detail: "cancellation_requested"}, ok: true, interesting: true},
		{name: "a Mistral batch still running is no end", fragment: `{"object":"batch","status":"RUNNING","completed_at":null}`},

		// The fifth held-out batch of stop payloads: shapes written here, after its misses.
		{name: "a Message Batch that ended", fragment: `{"id":"msgbatch_1","type":"message_batch","processing_status":"ended","request_counts":{"succeeded":2,"errored":0}}`,
			want: Classification{Category: Completed, Detail: "completed"}, ok: true},
		{name: "a Message Batch being cancelled", fragment: `{"id":"msgbatch_1","type":"message_batch","processing_status":"canceling","cancel_initiated_at":"2026-08-19T14:49:30Z"}`,
			want: Classification{Category: Cancelled, Detail: "cancelled"}, ok: true, interesting: true},
		{name: "a Message Batch in progress is no end", fragment: `{"id":"msgbatch_1","type":"message_batch","processing_status":"in_progress"}`},
		{name: "a processing_status outside a Message Batch is no end", fragment: `{"processing_status":"ended"}`},
		{name: "a Gemini batch that succeeded", fragment: `{"name":"batches/1","metadata":{"state":"BATCH_STATE_SUCCEEDED"},"done":true}`,
			want: Classification{Category: Completed, Detail: "succeeded"}, ok: true},
		{name: "a Gemini batch still running is no end", fragment: `{"name":"batches/1","metadata":{"state":"BATCH_STATE_RUNNING"},"done":false}`},
		{name: "a Vertex job cancelled", fragment: `{"state":"JOB_STATE_CANCELLED"}`,
			want: Classification{Category: Cancelled, Detail: "cancelled"}, ok: true, interesting: true},
		{name: "a state without an enum's prefix is no end", fragment: `{"state":"succeeded"}`},
		{name: "an errored batch result reads its error: an invalid request", fragment: `{"custom_id":"r1","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"Invalid request."}}}}`,
			want: Classification{Category: InvalidRequest, Detail: "invalid_request_error"}, ok: true, interesting: true},
		{name: "an errored batch result reads its error: overloaded", fragment: `{"custom_id":"r1","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}}`,
			want: Classification{Category: ProviderError, Detail: "overloaded_error"}, ok: true, interesting: true},
		{name: "ERNIE's event that is not the last", fragment: `{"object":"chat.completion","is_end":false,"finish_reason":"normal"}`},
		{name: "ERNIE's last event", fragment: `{"object":"chat.completion","is_end":true,"is_truncated":false,"finish_reason":"normal"}`,
			want: Classification{Category: Completed, Detail: "normal"}, ok: true},
		{name: "ERNIE's truncated answer", fragment: `{"object":"chat.completion","is_truncated":true}`,
			want: Classification{Category: OutputTruncated, Detail: "truncated"}, ok: true, interesting: true},
		{name: "an Interaction incomplete", fragment: `{"id":"v1_x","object":"interaction","status":"incomplete"}`,
			want: Classification{Category: OutputTruncated, Detail: "interaction_incomplete"}, ok: true, interesting: true},
		{name: "a batch line that expired", fragment: `{"custom_id":"r1","response":null,"error":{"code":"batch_expired","message":"Batch expired."}}`,
			want: Classification{Category: Timeout, Detail: "batch_expired"}, ok: true, interesting: true},
		{name: "a YandexGPT alternative's final status", fragment: `{"alternatives":[{"message":{"role":"assistant"},"status":"ALTERNATIVE_STATUS_FINAL"}]}`,
			want: Classification{Category: Completed, Detail: "alternative_status_final"}, ok: true},
		{name: "a YandexGPT alternative truncated", fragment: `{"alternatives":[{"status":"ALTERNATIVE_STATUS_TRUNCATED_FINAL"}]}`,
			want: Classification{Category: OutputTruncated, Detail: "alternative_status_truncated_final"}, ok: true, interesting: true},
		{name: "a YandexGPT alternative still partial", fragment: `{"alternatives":[{"status":"ALTERNATIVE_STATUS_PARTIAL"}]}`},
		{name: "a status elsewhere is no alternative's", fragment: `{"tools":[{"status":"ALTERNATIVE_STATUS_FINAL"}]}`},
		{name: "DashScope's unfinished reason written as a string", fragment: `{"output":{"finish_reason":"null","text":"Hi"}}`},
		{name: "a stream's error event", fragment: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			want: Classification{Category: ProviderError, Detail: "overloaded_error"}, ok: true, interesting: true},
		{name: "an error object alone", fragment: `{"error":{"message":"The server had an error.","type":"server_error"}}`,
			want: Classification{Category: ProviderError, Detail: "server_error"}, ok: true, interesting: true},
		{name: "GigaChat's blacklist", fragment: `{"choices":[{"finish_reason":"blacklist"}]}`,
			want: refusal("", "blacklist"), ok: true, interesting: true},
		{name: "LM Studio modelUnloaded", fragment: `{"stats":{"stopReason":"modelUnloaded"}}`,
			want: Classification{Category: ProviderError, Detail: "modelunloaded"}, ok: true, interesting: true},

		// A recognised ordinary token outranks an unrecognised one.
		{name: "ordinary first, unknown later", fragment: `{"response_metadata":{"finish_reason":"stop"},"additional_kwargs":{"finishReason":"OTHER"}}`,
			want: Classification{Category: Completed, Detail: "stop"}, ok: true},
		{name: "unknown first, ordinary later", fragment: `{"response_metadata":{"finish_reason":"other"},"additional_kwargs":{"finishReason":"STOP"}}`,
			want: Classification{Category: Completed, Detail: "stop"}, ok: true},
		{name: "Gemini OTHER", provider: "google", fragment: `{"candidates":[{"finishReason":"OTHER"}]}`,
			want: Classification{Category: Unknown, Provider: "google", Detail: "other"}, ok: true},
		{name: "Gemini FINISH_REASON_UNSPECIFIED", fragment: `{"candidates":[{"finishReason":"FINISH_REASON_UNSPECIFIED"}]}`,
			want: Classification{Category: Unknown, Provider: "google", Detail: "finish_reason_unspecified"}, ok: true},
		{name: "Responses failed is a provider fault", fragment: `{"object":"response","status":"failed","incomplete_details":null,"error":{"code":"server_error"}}`,
			want: Classification{Category: ProviderError, Provider: "openai", Detail: "server_error"}, ok: true, interesting: true},
		{name: "Ollama load", fragment: `{"model":"llama3.2","created_at":"2025-07-30T09:12:44Z","message":{"role":"assistant","content":""},"done_reason":"load","done":true}`,
			want: Classification{Category: Completed, Provider: "ollama", Detail: "load"}, ok: true},

		// Provider: a refusal's family first, then the argument, then the shape.
		{name: "refusal family beats the argument", provider: "groq", fragment: `{"choices":[{"finish_reason":"content_filter"}]}`,
			want: refusal("openai", "content_filter"), ok: true, interesting: true},
		{name: "argument trimmed and lower-cased", provider: " Groq ", fragment: `{"choices":[{"finish_reason":"length"}]}`,
			want: Classification{Category: OutputTruncated, Provider: "groq", Detail: "length"}, ok: true, interesting: true},
		{name: "argument beats the shape", provider: "vertex", fragment: `{"candidates":[{"finishReason":"MAX_TOKENS"}]}`,
			want: Classification{Category: OutputTruncated, Provider: "vertex", Detail: "max_tokens"}, ok: true, interesting: true},
		{name: "chat completions shape names no provider", fragment: `{"object":"chat.completion","choices":[{"finish_reason":"stop"}]}`,
			want: Classification{Category: Completed, Detail: "stop"}, ok: true},
		{name: "LangChain model_provider", fragment: `{"response_metadata":{"model_provider":"Anthropic","stop_reason":"end_turn"}}`,
			want: Classification{Category: Completed, Provider: "anthropic", Detail: "end_turn"}, ok: true},
		{name: "Claude Code transcript line", fragment: `{"type":"assistant","message":{"type":"message","role":"assistant","stop_reason":"end_turn"}}`,
			want: Classification{Category: Completed, Provider: "anthropic", Detail: "end_turn"}, ok: true},
		{name: "sensitive names no family", provider: "zai", fragment: `{"choices":[{"finish_reason":"sensitive"}]}`,
			want: refusal("zai", "sensitive"), ok: true, interesting: true},
		{name: "error_toxic names Cohere", fragment: `{"finish_reason":"ERROR_TOXIC"}`,
			want: refusal("cohere", "error_toxic"), ok: true, interesting: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkStop(t, tc) })
	}
}

// TestGapDecisions pins the tokens research section 13 left open, with the posture each
// decision buys (the posture is why the category was chosen).
func TestGapDecisions(t *testing.T) {
	tests := []struct {
		name, provider, fragment string
		want                     Classification
		// why is the posture fact the decision rests on.
		why func(Posture) bool
	}{
		{"model_context_window_exceeded is an overflow: reduce-context, not a continue", "", `{"type":"message","stop_reason":"model_context_window_exceeded"}`,
			Classification{Category: ContextOverflow, Provider: "anthropic", Detail: "model_context_window_exceeded"},
			func(p Posture) bool { return p.Remedy == ReduceContext && !p.RetryableAsIs }},
		{"Bedrock model_context_window_exceeded", "", `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"model_context_window_exceeded"}`,
			Classification{Category: ContextOverflow, Provider: "bedrock", Detail: "model_context_window_exceeded"},
			func(p Posture) bool { return p.Remedy == ReduceContext }},
		{"pause_turn is parked: resume", "", `{"type":"message","stop_reason":"pause_turn"}`,
			Classification{Category: Suspended, Provider: "anthropic", Detail: "pause_turn"},
			func(p Posture) bool { return p.Remedy == Resume }},
		{"Gemini MALFORMED_FUNCTION_CALL is worth sending again", "", `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}`,
			Classification{Category: ProviderError, Provider: "google", Detail: "malformed_function_call"},
			func(p Posture) bool { return p.RetryableAsIs }},
		{"Gemini UNEXPECTED_TOOL_CALL", "", `{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}`,
			Classification{Category: ProviderError, Provider: "google", Detail: "unexpected_tool_call"},
			func(p Posture) bool { return p.RetryableAsIs }},
		{"Bedrock malformed_model_output", "", `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"malformed_model_output"}`,
			Classification{Category: ProviderError, Provider: "bedrock", Detail: "malformed_model_output"},
			func(p Posture) bool { return p.RetryableAsIs }},
		{"Bedrock malformed_tool_use", "", `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"malformed_tool_use"}`,
			Classification{Category: ProviderError, Provider: "bedrock", Detail: "malformed_tool_use"},
			func(p Posture) bool { return p.RetryableAsIs }},
		{"Responses max_output_tokens is a truncation", "", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}`,
			Classification{Category: OutputTruncated, Provider: "openai", Detail: "max_output_tokens"},
			func(p Posture) bool { return p.Remedy == ChangeRequest }},
		{"Responses content_filter", "", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"}}`,
			Classification{Category: ContentRefusal, Provider: "openai", Detail: "content_filter"},
			func(p Posture) bool { return p.Remedy == ChangeRequest }},
		{"Responses cancelled", "", `{"object":"response","status":"cancelled","incomplete_details":null}`,
			Classification{Category: Cancelled, Provider: "openai", Detail: "cancelled"},
			func(p Posture) bool { return !p.RetryableAsIs && !p.RetryableAfterRemedy }},
		{"Cohere ERROR is a provider fault", "", `{"id":"x","finish_reason":"ERROR","message":{"role":"assistant","content":[]}}`,
			Classification{Category: ProviderError, Provider: "cohere", Detail: "error"},
			func(p Posture) bool { return p.RetryableAsIs }},
		{"Cohere ERROR_TOXIC is a refusal", "", `{"id":"x","finish_reason":"ERROR_TOXIC","message":{"role":"assistant","content":[]}}`,
			Classification{Category: ContentRefusal, Provider: "cohere", Detail: "error_toxic"},
			func(p Posture) bool { return !p.RetryableAsIs }},
		{"Gemini prompt block is a refusal", "", `{"promptFeedback":{"blockReason":"OTHER"},"usageMetadata":{"promptTokenCount":4}}`,
			Classification{Category: ContentRefusal, Provider: "google", Detail: "other"},
			func(p Posture) bool { return p.Remedy == ChangeRequest }},
		{"Z.ai network_error is a provider fault on a completed response", "zai", `{"choices":[{"finish_reason":"network_error"}]}`,
			Classification{Category: ProviderError, Provider: "zai", Detail: "network_error"},
			func(p Posture) bool { return p.RetryableAsIs }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkStop(t, stopCase{name: tc.name, provider: tc.provider, fragment: tc.fragment, want: tc.want, ok: true, interesting: true})
			if p := PostureOf(tc.want.Category); !tc.why(p) {
				t.Errorf("posture of %s is %+v, which is not what the decision rests on", tc.want.Category, p)
			}
		})
	}
}

// TestVercelMapping ports research section 12, the Vercel AI SDK's per-provider finish-reason
// mapping. Each row gives Vercel's unified value; where stopgate deliberately differs, differs
// says why, and the test checks that the row does differ, so a stale reason fails.
func TestVercelMapping(t *testing.T) {
	// vercel is the unified value each category corresponds to ("" when none does).
	vercel := map[Category][]string{
		Completed:       {"stop", "tool-calls"},
		OutputTruncated: {"length"},
		ContentRefusal:  {"content-filter"},
		ProviderError:   {"error"},
		Unknown:         {"other"},
	}
	tests := []struct {
		provider, fragment, vercel string
		want                       Category
		differs                    string
	}{
		// OpenAI chat.
		{"openai", `{"choices":[{"finish_reason":"stop"}]}`, "stop", Completed, ""},
		{"openai", `{"choices":[{"finish_reason":"length"}]}`, "length", OutputTruncated, ""},
		{"openai", `{"choices":[{"finish_reason":"content_filter"}]}`, "content-filter", ContentRefusal, ""},
		{"openai", `{"choices":[{"finish_reason":"function_call"}]}`, "tool-calls", Completed, ""},
		{"openai", `{"choices":[{"finish_reason":"tool_calls"}]}`, "tool-calls", Completed, ""},
		{"openai", `{"choices":[{"finish_reason":"something_new"}]}`, "other", Unknown, ""},
		{"openai-compatible", `{"choices":[{"finish_reason":"model_context_window_exceeded"}]}`, "length", ContextOverflow,
			"the window ran out, not the output cap: reduce-context is the remedy, and a continue would overflow again"},
		// OpenAI Responses.
		{"openai", `{"object":"response","status":"completed","incomplete_details":null}`, "stop", Completed, ""},
		{"openai", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}`, "length", OutputTruncated, ""},
		{"openai", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"}}`, "content-filter", ContentRefusal, ""},
		{"openai", `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_messages"}}`, "other", OutputTruncated,
			"a cap on the run was reached: read by its words as a truncation"},
		// Anthropic.
		{"anthropic", `{"type":"message","stop_reason":"end_turn"}`, "stop", Completed, ""},
		{"anthropic", `{"type":"message","stop_reason":"stop_sequence"}`, "stop", Completed, ""},
		{"anthropic", `{"type":"message","stop_reason":"pause_turn"}`, "stop", Suspended,
			"a paused server-tool turn is not finished; it is parked until sent back (remedy resume)"},
		{"anthropic", `{"type":"message","stop_reason":"refusal"}`, "content-filter", ContentRefusal, ""},
		{"anthropic", `{"type":"message","stop_reason":"tool_use"}`, "tool-calls", Completed, ""},
		{"anthropic", `{"type":"message","stop_reason":"max_tokens"}`, "length", OutputTruncated, ""},
		{"anthropic", `{"type":"message","stop_reason":"model_context_window_exceeded"}`, "length", ContextOverflow,
			"the window ran out, not the output cap: reduce-context is the remedy"},
		{"anthropic", `{"type":"message","stop_reason":"compaction"}`, "other", Suspended, "Anthropic stops after writing a compaction block, to be continued: kin of pause_turn"},
		// Google Generative AI.
		{"google", `{"candidates":[{"finishReason":"STOP"}]}`, "stop", Completed, ""},
		{"google", `{"candidates":[{"finishReason":"MAX_TOKENS"}]}`, "length", OutputTruncated, ""},
		{"google", `{"candidates":[{"finishReason":"IMAGE_SAFETY"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"RECITATION"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"SAFETY"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"BLOCKLIST"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"PROHIBITED_CONTENT"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"SPII"}]}`, "content-filter", ContentRefusal, ""},
		{"google", `{"candidates":[{"finishReason":"LANGUAGE"}]}`, "other", ContentRefusal,
			"the origin counts LANGUAGE in @langchain/google's content-filter set: the candidate was withheld, not finished"},
		{"google", `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}`, "error", ProviderError, ""},
		{"google", `{"candidates":[{"finishReason":"FINISH_REASON_UNSPECIFIED"}]}`, "other", Unknown, ""},
		{"google", `{"candidates":[{"finishReason":"OTHER"}]}`, "other", Unknown, ""},
		// Amazon Bedrock.
		{"bedrock", `{"stopReason":"stop_sequence"}`, "stop", Completed, ""},
		{"bedrock", `{"stopReason":"end_turn"}`, "stop", Completed, ""},
		{"bedrock", `{"stopReason":"max_tokens"}`, "length", OutputTruncated, ""},
		{"bedrock", `{"stopReason":"content_filtered"}`, "content-filter", ContentRefusal, ""},
		{"bedrock", `{"stopReason":"guardrail_intervened"}`, "content-filter", ContentRefusal, ""},
		{"bedrock", `{"stopReason":"tool_use"}`, "tool-calls", Completed, ""},
		{"bedrock", `{"stopReason":"malformed_model_output"}`, "other", ProviderError,
			"a malformed generation is the provider's fault and worth sending again as it is; other would hide it"},
		{"bedrock", `{"stopReason":"malformed_tool_use"}`, "other", ProviderError,
			"a malformed tool call is the provider's generation failing, worth sending again as it is"},
		{"bedrock", `{"stopReason":"model_context_window_exceeded"}`, "other", ContextOverflow,
			"the window ran out: reduce-context is the remedy"},
		// Mistral.
		{"mistral", `{"choices":[{"finish_reason":"stop"}]}`, "stop", Completed, ""},
		{"mistral", `{"choices":[{"finish_reason":"length"}]}`, "length", OutputTruncated, ""},
		{"mistral", `{"choices":[{"finish_reason":"model_length"}]}`, "length", ContextOverflow,
			"the SDK folds it into length, but Mistral's model_length is the context window filling: reduce-context is the remedy"},
		{"mistral", `{"choices":[{"finish_reason":"tool_calls"}]}`, "tool-calls", Completed, ""},
		// Cohere.
		{"cohere", `{"finish_reason":"COMPLETE"}`, "stop", Completed, ""},
		{"cohere", `{"finish_reason":"STOP_SEQUENCE"}`, "stop", Completed, ""},
		{"cohere", `{"finish_reason":"MAX_TOKENS"}`, "length", OutputTruncated, ""},
		{"cohere", `{"finish_reason":"ERROR"}`, "error", ProviderError, ""},
		{"cohere", `{"finish_reason":"TOOL_CALL"}`, "tool-calls", Completed, ""},
		{"cohere", `{"finish_reason":"ERROR_TOXIC"}`, "content-filter", ContentRefusal, ""},
		{"cohere", `{"finish_reason":"ERROR_LIMIT"}`, "error", ContextOverflow,
			"Cohere v1: the generation could not be completed because the model's context limit was reached"},
		{"cohere", `{"finish_reason":"USER_CANCEL"}`, "other", Cancelled, "the user cancelled the generation: other would hide it"},
	}
	for _, tc := range tests {
		t.Run(tc.provider+" "+tc.fragment, func(t *testing.T) {
			c, ok := ClassifyStop(tc.provider, metaJSON(t, tc.fragment))
			if !ok || c.Category != tc.want {
				t.Fatalf("ClassifyStop = %+v, %t; want %s", c, ok, tc.want)
			}
			agrees := false
			for _, v := range vercel[c.Category] {
				agrees = agrees || v == tc.vercel
			}
			switch {
			case agrees && tc.differs != "":
				t.Errorf("the row says stopgate differs from Vercel's %q (%s), but %s agrees with it", tc.vercel, tc.differs, c.Category)
			case !agrees && tc.differs == "":
				t.Errorf("%s differs from Vercel's %q and the row gives no reason", c.Category, tc.vercel)
			}
		})
	}
}

// TestRecordedBodies reads whole response bodies and SSE streams in the providers' shapes.
func TestRecordedBodies(t *testing.T) {
	tests := []struct {
		file     string
		provider string
		// tokens is ReadStopToken's answer per event ("-" for none); one entry for a body.
		tokens []string
		// want is ClassifyStop's answer for the event that carries the token.
		want        Classification
		interesting bool
	}{
		{"openai_chat_completion.json", "openai", []string{"length"},
			Classification{Category: OutputTruncated, Provider: "openai", Detail: "length"}, true},
		{"openai_chat_stream.sse", "", []string{"-", "-", "-", "tool_calls", "-"},
			Classification{Category: Completed, Detail: "tool_calls"}, false},
		{"openai_responses_incomplete.json", "", []string{"max_output_tokens"},
			Classification{Category: OutputTruncated, Provider: "openai", Detail: "max_output_tokens"}, true},
		{"openai_responses_stream.sse", "", []string{"-", "-", "completed"},
			Classification{Category: Completed, Provider: "openai", Detail: "completed"}, false},
		{"anthropic_message.json", "", []string{"tool_use"},
			Classification{Category: Completed, Provider: "anthropic", Detail: "tool_use"}, false},
		{"anthropic_stream.sse", "", []string{"-", "-", "-", "-", "-", "max_tokens", "-"},
			Classification{Category: OutputTruncated, Provider: "anthropic", Detail: "max_tokens"}, true},
		{"gemini_generate_content.json", "", []string{"safety"},
			refusal("google", "safety"), true},
		{"gemini_prompt_blocked.json", "", []string{"prohibited_content"},
			refusal("google", "prohibited_content"), true},
		{"gemini_stream.sse", "", []string{"-", "-", "max_tokens"},
			Classification{Category: OutputTruncated, Provider: "google", Detail: "max_tokens"}, true},
		{"bedrock_converse.json", "", []string{"guardrail_intervened"},
			refusal("bedrock", "guardrail_intervened"), true},
		{"ollama_chat.json", "", []string{"length"},
			Classification{Category: OutputTruncated, Provider: "ollama", Detail: "length"}, true},
		{"cohere_v2_chat.json", "", []string{"complete"},
			Classification{Category: Completed, Provider: "cohere", Detail: "complete"}, false},
		{"groq_chat_completion.json", "groq", []string{"stop"},
			Classification{Category: Completed, Provider: "groq", Detail: "stop"}, false},
		{"mistral_chat_completion.json", "", []string{"model_length"},
			Classification{Category: ContextOverflow, Detail: "model_length"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var events []any
			if strings.HasSuffix(tc.file, ".sse") {
				events = metaSSE(t, tc.file)
			} else {
				events = []any{metaFixture(t, tc.file)}
			}
			if len(events) != len(tc.tokens) {
				t.Fatalf("got %d events, want %d", len(events), len(tc.tokens))
			}
			carrier := -1
			for i, ev := range events {
				tok, ok := readStopToken(ev)
				if !ok {
					tok = "-"
				}
				if tok != tc.tokens[i] {
					t.Errorf("event %d: token %q, want %q", i, tok, tc.tokens[i])
				}
				if ok {
					carrier = i
				}
			}
			if carrier < 0 {
				t.Fatal("no event carries a token")
			}
			c, ok := ClassifyStop(tc.provider, events[carrier])
			if !ok || c != tc.want {
				t.Errorf("ClassifyStop = %+v, %t; want %+v", c, ok, tc.want)
			}
			if _, det := detectStop(tc.provider, events[carrier]); det != tc.interesting {
				t.Errorf("detectStop reported %t, want %t", det, tc.interesting)
			}
		})
	}
}

// TestClassifyStopBareToken checks a bare token means what it means inside a fragment.
func TestClassifyStopBareToken(t *testing.T) {
	tests := []struct {
		provider, token string
		want            Classification
		ok              bool
	}{
		{"openai", "stop", Classification{Category: Completed, Provider: "openai", Detail: "stop"}, true},
		{"", "MAX_TOKENS", Classification{Category: OutputTruncated, Detail: "max_tokens"}, true},
		{"azure", "content_filter", refusal("openai", "content_filter"), true},
		{"anthropic", "pause_turn", Classification{Category: Suspended, Provider: "anthropic", Detail: "pause_turn"}, true},
		{"google", "OTHER", Classification{Category: Unknown, Provider: "google", Detail: "other"}, true},
		{"google", "", Classification{}, false},
	}
	for _, tc := range tests {
		got, ok := ClassifyStop(tc.provider, tc.token)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ClassifyStop(%q, %q) = %+v, %t; want %+v, %t", tc.provider, tc.token, got, ok, tc.want, tc.ok)
		}
		if !tc.ok {
			continue
		}
		frag := map[string]any{"finish_reason": tc.token}
		if c, _ := ClassifyStop(tc.provider, frag); c != got {
			t.Errorf("token %q alone means %+v, inside a fragment %+v", tc.token, got, c)
		}
	}
	// Every recognised token, in snake, upper and camel case, means what the table says.
	for words, cls := range stopTokens {
		snake := strings.ReplaceAll(words, " ", "_")
		var camel string
		for _, w := range strings.Fields(words) {
			camel += strings.ToUpper(w[:1]) + w[1:]
		}
		for _, spelled := range []string{snake, strings.ToUpper(snake), camel} {
			if c, ok := ClassifyStop("", spelled); !ok || c.Category != cls.category || c.Detail != strings.ToLower(spelled) {
				t.Errorf("ClassifyStop(%q) = %+v, %t; want %s", spelled, c, ok, cls.category)
			}
		}
	}
}

// TestStopWords: a token no table lists is read by its words.
func TestStopWords(t *testing.T) {
	for tok, want := range map[string]Category{
		"SAFETY_BLOCK": ContentRefusal, "contextWindowFull": ContextOverflow, "maxLengthReached": OutputTruncated,
		"userAborted": Cancelled, "generation_failed": ProviderError, "end_of_sequence": Completed,
		"banana": Unknown,
	} {
		if c, ok := ClassifyStop("", tok); !ok || c.Category != want {
			t.Errorf("ClassifyStop(%q) = %+v, want %s", tok, c, want)
		}
	}
	for words, cls := range stopTokens {
		if cls.category == ContentRefusal && cls.rank <= rankTruncated {
			t.Errorf("%q: a refusal must outrank a truncation", words)
		}
	}
}

// detectStop is ClassifyStop reporting only the classifications worth acting on: neither an
// ordinary finish nor an unknown token.
func detectStop(provider string, fragment any) (Classification, bool) {
	c, ok := ClassifyStop(provider, fragment)
	if !ok || c.Category == Completed || c.Category == Unknown {
		return Classification{}, false
	}
	return c, true
}

// TestClassifyStopAgentEnds: the events agent CLIs write as a run or a turn ends, and a
// service's bare error body, mean what their fields say; want "" is no stop recorded.
func TestClassifyStopAgentEnds(t *testing.T) {
	tests := []struct {
		name, fragment string
		want           Category
	}{
		{"Claude Code result, success", `{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"Done: the tests pass.","session_id":"a"}`, Completed},
		{"Claude Code result, turns used up", `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":25,"session_id":"a"}`, RecursionLimit},
		{"Claude Code result, tools aborted", `{"type":"result","subtype":"success","is_error":false,"result":"","terminal_reason":"aborted_tools","session_id":"a"}`, Cancelled},
		{"Claude Code result, failed on an API error", `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"}}","terminal_reason":"api_error"}`, RateLimited},
		{"Gemini CLI result, success", `{"type":"result","timestamp":"2026-01-01T00:00:00Z","status":"success","stats":{"total_tokens":9}}`, Completed},
		{"Gemini CLI result, turns used up", `{"type":"result","status":"error","error":{"type":"MaxSessionTurnsError","message":"Maximum session turns exceeded"},"stats":{}}`, RecursionLimit},
		{"Gemini CLI result, error it cannot name", `{"type":"result","status":"error","error":{"type":"Error","message":"something odd"}}`, ProviderError},
		{"Codex exec turn completed", `{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}`, Completed},
		{"Codex exec turn failed", `{"type":"turn.failed","error":{"message":"stream disconnected before completion: Your input exceeds the context window of this model."}}`, ContextOverflow},
		{"opencode step-finish", `{"type":"step-finish","reason":"length","tokens":{"input":5,"output":4096}}`, OutputTruncated},
		{"opencode step ended", `{"type":"session.next.step.ended","data":{"sessionID":"s","finish":"tool-calls"}}`, Completed},
		{"Gemini Live turn ended on prohibited input", `{"serverContent":{"turnComplete":true,"turnCompleteReason":"IMAGE_PROHIBITED_INPUT_CONTENT"}}`, ContentRefusal},
		{"Gemini Live turn waiting for input", `{"serverContent":{"turnComplete":true,"turnCompleteReason":"NEED_MORE_INPUT"}}`, Completed},
		{"Coze answer finished", `{"role":"assistant","type":"verbose","content":"{\"msg_type\":\"generate_answer_finish\",\"data\":\"\"}","content_type":"text"}`, Completed},
		{"Coze verbose of another kind is no end", `{"role":"assistant","type":"verbose","content":"{\"msg_type\":\"knowledge_recall\",\"data\":\"\"}","content_type":"text"}`, ""},
		{"AutoGen's turn cap", `{"stop_reason":"Maximum number of turns 10 reached."}`, RecursionLimit},
		{"AutoGen's designed end", `{"stop_reason":"Text 'TERMINATE' mentioned"}`, Completed},
		{"a condition met that is a violation", `{"stop_reason":"Policy violation detected in output"}`, ContentRefusal},
		{"a timeout reached", `{"stop_reason":"Timeout of 30 seconds reached"}`, Timeout},
		{"AutoGen stopped from outside", `{"stop_reason":"External termination requested"}`, Cancelled},
		{"Claude Code result failing on an API status", `{"type":"result","subtype":"success","is_error":true,"api_error_status":503,"session_id":"a"}`, ProviderError},
		{"AG-UI run finished", `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`, Completed},
		{"AG-UI run error", `{"type":"RUN_ERROR","message":"429 Too Many Requests: rate limit exceeded"}`, RateLimited},
		{"AI SDK UI stream error part", `{"type":"error","errorText":"Request timed out after 60s"}`, Timeout},
		{"smolagents run that ran out of steps", `{"output":null,"state":"max_steps_error","steps":[]}`, RecursionLimit},
		{"ADK event ending on a malformed call", `{"Content":null,"ErrorCode":"MALFORMED_FUNCTION_CALL","Author":"agent"}`, ProviderError},
		{"a failed tool item is no stop", `{"type":"mcp_call","id":"mcp_1","status":"failed","error":{"code":500,"message":"tool failed"}}`, ""},
		{"Google's per-minute quota in a response error", `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"You exceeded your current quota.","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}]}}`, RateLimited},
		{"Strands paused on an interrupt", `{"stop_reason":"interrupt","interrupts":[{"id":"i1","name":"confirm","reason":"needs a person"}]}`, Suspended},
		{"Agents SDK run state awaiting approval", `{"currentTurn":2,"maxTurns":10,"currentStep":{"type":"next_step_interruption","data":{"interruptions":[{"type":"tool_approval_item"}]}}}`, Suspended},
		{"Agents SDK run state still running", `{"current_turn":1,"max_turns":5,"current_step":{"type":"next_step_run_again"}}`, ""},
		{"LangGraph interrupt in an update", `{"event":"updates","data":{"__interrupt__":[{"value":"Approve the plan?","resumable":true}]}}`, Suspended},
		{"LangGraph with no interrupt", `{"event":"updates","data":{"__interrupt__":[]}}`, ""},
		// What harnesses write in their session files as a turn ends.
		{"Claude Code's api_error record", `{"type":"system","subtype":"api_error","level":"error","error":{"status":529,"error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}},"retryAttempt":3}`, ProviderError},
		{"Claude Code's interrupted turn", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`, Cancelled},
		{"Claude Code's own API error message", `{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","content":[{"type":"text","text":"API Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}"}]}}`, AuthFailed},
		{"Claude Code's kept partial answer", `{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","content":[{"type":"text","text":"Let me look at the"}]}}`, Cancelled},
		{"a model's own stop_sequence", `{"type":"assistant","message":{"model":"claude-sonnet-4-5","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"Done."}]}}`, Completed},
		{"Codex rollout task complete", `{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"ok"}}`, Completed},
		{"Codex rollout turn aborted", `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`, Cancelled},
		{"Codex rollout error", `{"type":"event_msg","payload":{"type":"error","message":"stream error: exceeded retry limit, last status: 429 Too Many Requests"}}`, RateLimited},
		{"Copilot CLI session error, its own connection", `{"type":"session.error","data":{"errorType":"query","message":"Could not connect to the model endpoint: ECONNREFUSED 127.0.0.1:8080"}}`, NetworkError},
		{"Copilot CLI turn end", `{"type":"assistant.turn_end","data":{"turnId":"3"}}`, Completed},
		{"Gemini CLI chat error", `{"type":"error","content":"[API Error: {\"error\":{\"code\":429,\"message\":\"Resource has been exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}}]"}`, RateLimited},
		{"Gemini CLI chat info of a cancel", `{"type":"info","content":"Request cancelled."}`, Cancelled},
		{"Gemini CLI chat info of another kind", `{"type":"info","content":"Switched to model gemini-2.5-flash."}`, ""},
		{"pi's message that ended on an error", `{"type":"message","message":{"role":"assistant","stopReason":"error","errorMessage":"429 rate limit exceeded, retry in 20s"}}`, RateLimited},
		{"Claude Code's turn duration", `{"type":"system","subtype":"turn_duration","durationMs":5120}`, Completed},
		{"Claude Code's stop hooks let it stop", `{"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookErrors":[],"preventedContinuation":false}`, Completed},
		{"Claude Code's stop hooks kept it going", `{"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookErrors":[],"preventedContinuation":true}`, ""},
		{"Codex exec turn failed in its own words", `{"type":"turn.failed","message":"Idle timeout reached"}`, Timeout},
		{"opencode assistant message info", `{"role":"assistant","modelID":"m","finish":"length","tokens":{"output":4096}}`, OutputTruncated},
		{"Cline's attempt_completion", `{"role":"assistant","content":[{"type":"text","text":"Done."},{"type":"tool_use","id":"t1","name":"attempt_completion","input":{"result":"ok"}}]}`, Completed},
		{"an assistant's other tool call is no end", `{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"read_file","input":{"path":"a"}}]}`, ""},
		{"OpenHands waits for the user", `{"observation":"agent_state_changed","extras":{"agent_state":"awaiting_user_input"}}`, Completed},
		{"OpenHands stopped", `{"observation":"agent_state_changed","extras":{"agent_state":"stopped"}}`, Cancelled},
		{"OpenHands still running", `{"observation":"agent_state_changed","extras":{"agent_state":"running"}}`, ""},
		{"SWE-agent submitted", `{"exit_status":"submitted","submission":"diff --git a/x b/x"}`, Completed},
		{"a bare error body", `{"error_code":18,"error_msg":"Open api qps request limit reached"}`, RateLimited},
		{"a chat chunk ending on an error", `{"object":"chat.completion.chunk","error":{"code":502,"message":"Upstream connection reset"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`, ProviderError},
		{"a turn cap merely named is no end", `{"type":"result","status":"error","error":{"type":"ConfigError","message":"max_turns must be a positive integer"}}`, InvalidRequest},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal([]byte(tt.fragment), &v); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, ok := ClassifyStop("", v)
		if ok != (tt.want != "") || got.Category != tt.want {
			t.Errorf("%s: ClassifyStop = %+v, %v; want %q (none: no stop recorded)", tt.name, got, ok, tt.want)
		}
	}
}

// TestClassifyStopBareStatus: a bare status is a stop when the caller names whose answer it is,
// and nothing when no one does.
func TestClassifyStopBareStatus(t *testing.T) {
	for _, tt := range []struct {
		provider, status string
		want             Category
	}{
		{"llamaindex-workflows", "cancelled", Cancelled},
		{"llamaindex-workflows", "completed", Completed},
		{"llamaindex-workflows", "running", ""},
		{"", "cancelled", ""},
	} {
		got, ok := ClassifyStop(tt.provider, map[string]any{"status": tt.status})
		if ok != (tt.want != "") || got.Category != tt.want {
			t.Errorf("ClassifyStop(%q, {status: %q}) = %+v, %v; want %q", tt.provider, tt.status, got, ok, tt.want)
		}
	}
}
