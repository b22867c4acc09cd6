package termination

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file is the metadata feeder: it reads the stop or finish token a provider put on a
// response and says what it means. It reads decoded JSON (map[string]any, []any, float64, as
// encoding/json produces them) and never fails: a fragment it cannot read carries no token.

// Rank of each kind of token: when one fragment carries several, the highest rank decides, so
// a benign token anywhere cannot hide a telling one.
const (
	rankUnknown   = -1
	rankOrdinary  = 0
	rankSuspended = 10
	rankCancelled = 20
	rankTimeout   = 25
	rankProvider  = 30
	rankOverflow  = 40
	rankTruncated = 50
	rankFailure   = 90 // a failed response's own error, read as an error
	rankRefusal   = 100
)

// stopClass is what a recognised token means; family is the provider family a refusal token
// names, for the Reason's provider.
type stopClass struct {
	category Category
	rank     int
	family   string
}

var (
	classCompleted = stopClass{Completed, rankOrdinary, ""}
	classTruncated = stopClass{OutputTruncated, rankTruncated, ""}
	classOverflow  = stopClass{ContextOverflow, rankOverflow, ""}
	classProvider  = stopClass{ProviderError, rankProvider, ""}
	classCancelled = stopClass{Cancelled, rankCancelled, ""}
	classTimeout   = stopClass{Timeout, rankTimeout, ""}
	classSuspended = stopClass{Suspended, rankSuspended, ""}
	classUnknown   = stopClass{Unknown, rankUnknown, ""}
	classTurnCap   = stopClass{RecursionLimit, rankTruncated, ""}

	classRefusal   = stopClass{ContentRefusal, rankRefusal, ""}
	refusalOpenAI  = stopClass{ContentRefusal, rankRefusal, "openai"}
	refusalClaude  = stopClass{ContentRefusal, rankRefusal, "anthropic"}
	refusalBedrock = stopClass{ContentRefusal, rankRefusal, "bedrock"}
	refusalCohere  = stopClass{ContentRefusal, rankRefusal, "cohere"}
	refusalGoogle  = stopClass{ContentRefusal, rankRefusal, "google"}
)

// stopTokens maps the tokens providers document, written as words (max_tokens, MAX_TOKENS and
// maxTokens are all "max tokens"), to their meaning. A token outside it is read by its words
// ([stopWords]).
var stopTokens = map[string]stopClass{
	// Ordinary ends: OpenAI family, Anthropic, Bedrock, Gemini, Cohere, Mistral, Ollama, TGI
	// (eos token), llama.cpp (eos, word), LM Studio (eos found, stop string found, tool calls),
	// AI21 (endoftext), Bedrock Titan (finish), the Responses and Realtime status.
	"stop": classCompleted, "end turn": classCompleted, "stop sequence": classCompleted,
	"tool use": classCompleted, "tool calls": classCompleted, "tool call": classCompleted,
	"function call": classCompleted, "complete": classCompleted, "completed": classCompleted,
	"eos": classCompleted, "eos token": classCompleted, "eos found": classCompleted,
	"stop string found": classCompleted, "word": classCompleted, "stop word": classCompleted,
	"endoftext": classCompleted, "end of text": classCompleted, "finish": classCompleted,
	"finished": classCompleted, "succeeded": classCompleted,
	// ERNIE's (Qianfan's) normal: the text is the model's own, neither cut nor replaced.
	"normal": classCompleted,
	// YandexGPT's ALTERNATIVE_STATUS_FINAL (read without its type's prefix).
	"final": classCompleted,
	// Ollama's load and unload answer a request that asked only to load or unload the model.
	"load": classCompleted, "unload": classCompleted,

	// Refusals: the model or the provider's safety system declined. Gemini's whole set
	// (safety, recitation, language, blocklist, prohibited content, SPII and the image ones),
	// Anthropic refusal, Bedrock guardrail intervened and content filtered, Cohere error toxic,
	// Z.ai sensitive.
	"content filter": refusalOpenAI, "content filtered": refusalBedrock, "refusal": refusalClaude,
	"guardrail intervened": refusalBedrock, "safety": refusalGoogle, "recitation": refusalGoogle,
	"language": refusalGoogle, "blocklist": refusalGoogle, "prohibited content": refusalGoogle,
	"spii": refusalGoogle, "image safety": refusalGoogle, "image prohibited content": refusalGoogle,
	"image recitation": refusalGoogle, "error toxic": refusalCohere, "sensitive": classRefusal,
	"model armor": classRefusal, // Vertex: blocked by Model Armor
	"blacklist":   classRefusal, // GigaChat: its censor withheld the answer

	// Truncation against the output cap: length (OpenAI, Ollama, vLLM), max tokens (Anthropic,
	// Bedrock, Gemini, Cohere), model length (Mistral), max output tokens (Responses), limit
	// (llama.cpp), max predicted tokens reached (LM Studio), Titan LENGTH.
	"length": classTruncated, "max tokens": classTruncated, "maxtokens": classTruncated,
	"max output tokens": classTruncated, "limit": classTruncated,
	"max completion tokens": classTruncated, "max predicted tokens reached": classTruncated,
	"max new tokens": classTruncated, "truncated": classTruncated,
	// An Interaction ended before its answer did; the Interactions API has no details field
	// that could name another reason.
	"interaction incomplete": classTruncated,

	// The window, not the output cap, ran out (Anthropic, Bedrock, Z.ai; LM Studio's context
	// length reached; Cohere's ERROR_LIMIT, "the model's context limit was reached").
	"model context window exceeded": classOverflow, "context length reached": classOverflow,
	"context length exceeded": classOverflow, "context window exceeded": classOverflow,
	"error limit": classOverflow, "max prompt tokens": classOverflow, // Assistants: the prompt budget
	// Mistral's model_length ("the model's context length was reached", beside length for
	// max_tokens) and watsonx's token_limit (beside max_tokens for the requested cap).
	"model length": classOverflow, "token limit": classOverflow,
	"max context": classOverflow, // xAI's REASON_MAX_CONTEXT, beside REASON_MAX_LEN

	// Provider-side failures on a completed response: a malformed generation (Gemini,
	// Bedrock), Cohere ERROR, Z.ai network error, DeepSeek insufficient system resource, a
	// failed Responses or Realtime object.
	"malformed function call": classProvider, "unexpected tool call": classProvider,
	"too many tool calls": classProvider, "malformed model output": classProvider,
	"malformed tool use": classProvider, "error": classProvider, "network error": classProvider,
	"insufficient system resource": classProvider, "failed": classProvider,
	"model unloaded": classProvider, // LM Studio: the model was unloaded mid-prediction

	// Stopped by the caller: a cancelled Responses or Realtime object, vLLM and SGLang abort,
	// Cohere USER_CANCEL, LM Studio user stopped.
	"cancelled": classCancelled, "canceled": classCancelled, "abort": classCancelled,
	"aborted": classCancelled, "user cancel": classCancelled, "user stopped": classCancelled,
	"client cancelled": classCancelled, "batch cancelled": classCancelled,
	"interrupted": classCancelled, // Gemini Live: the user spoke over the model
	// An agent run paused for a person (Strands' stop_reason interrupt beside its interrupts,
	// LangGraph's __interrupt__, the Agents SDK's next_step_interruption), to be resumed.
	"interrupt": classSuspended, "next step interruption": classSuspended,
	"next step final output": classCompleted,

	// Anthropic's pause_turn parks a long server-tool turn, and compaction stops after a
	// compaction block; both are to be sent back so the model continues.
	"pause turn": classSuspended, "compaction": classSuspended,

	// An Assistants run that ran past its expires_at, a batch request that expired, watsonx's
	// time_limit.
	"expired": classTimeout, "time limit": classTimeout, "batch expired": classTimeout,
	// A Message Batches request that errored; an Interactions run waiting for the client's
	// function results (as tool_calls).
	"errored": classProvider, "requires action": classCompleted,
	// Bedrock Titan's completionReason for a RAG query sent while RAG is off: the request must
	// change.
	"rag query when rag disabled": {InvalidRequest, rankProvider, ""},
	// Gemini's NO_IMAGE: an image was to come and none did.
	"no image": {EmptyResponse, rankProvider, "google"},
	// Mistral's batch statuses past their end: out of time, a cancel asked for.
	"timeout exceeded": classTimeout, "cancellation requested": classCancelled,

	// Gemini Live's TurnCompleteReason: the input was prohibited, the model rejected its
	// response, or it waits for more of the user's input.
	"prohibited input content": refusalGoogle, "image prohibited input content": refusalGoogle,
	"response rejected": refusalGoogle, "need more input": classCompleted,
	"turn complete reason unspecified": classUnknown,
	// An agent loop that used every turn it was allowed (Claude Code's error_max_turns).
	"error max turns": classTurnCap, "max steps error": classTurnCap, // smolagents' max_steps_error
	"success": classCompleted, // smolagents' RunResult state

	// Tokens that say nothing about why: Gemini OTHER and UNSPECIFIED, a Responses or Realtime
	// object still incomplete (its reason, read beside it, decides).
	"other": classUnknown, "finish reason unspecified": classUnknown, "incomplete": classUnknown,
}

// stopWords reads a token no provider documents to us by its words, so a new spelling of a
// known kind is not lost: safety words are a refusal, the window running out an overflow, a
// cap or length a truncation, an abort or a cancel a cancellation, an error or a failure a
// provider fault, a stop, end or finish an ordinary end. Anything else is unknown.
func stopWords(words string) stopClass {
	norm := " " + words + " "
	switch {
	case hasStem(norm, "safety", "filter", "block", "prohibit", "refus", "moderat", "toxic", "guardrail", "recitation", "sensitive", "violat"):
		return classRefusal
	case hasStem(norm, "context", "window") && hasStem(norm, "exceed", "limit", "reach", "overflow", "full"):
		return classOverflow
	case (hasStem(norm, "turn", "step", "iteration", "round", "budget") || strings.Contains(norm, " number of messages ")) && hasStem(norm, "max", "limit", "reach", "exceed"):
		// an agent loop's cap: AutoGen's "Maximum number of turns 3 reached", Claude Code's
		// error_max_budget_usd
		return classTurnCap
	case hasStem(norm, "terminat") && hasStem(norm, "request", "external"):
		return classCancelled // AutoGen's "External termination requested": the application stopped it
	case hasStem(norm, "max", "length", "limit", "truncat"):
		return classTruncated
	case hasStem(norm, "abort", "cancel", "interrupt"):
		return classCancelled
	case hasStem(norm, "error", "fail", "malformed"):
		return classProvider
	case hasStem(norm, "timeout", "timed"):
		return classTimeout
	case hasStem(norm, "stop", "end", "eos", "complete", "finish", "done"):
		return classCompleted
	case strings.Count(norm, " ") > 3 && hasStem(norm, "mentioned", "detected", "executed", "received", "answered", "approved"):
		// A sentence saying the condition a run was set to end on was met: AutoGen's "Text
		// 'APPROVE' mentioned", "Handoff to user from planner detected", "Function 'approve'
		// was executed".
		return classCompleted
	}
	return classUnknown
}

// hasStem reports whether a word of the normalised text begins with any of the stems.
func hasStem(norm string, stems ...string) bool {
	for _, s := range stems {
		if strings.Contains(norm, " "+s) {
			return true
		}
	}
	return false
}

// stopMeaning returns what a token, written as words (tokenWords), means.
func stopMeaning(words string) stopClass {
	if c, ok := stopTokens[words]; ok {
		return c
	}
	for _, prefix := range [...]string{"reason ", "alternative status "} {
		// An enum spelled with its type's prefix: xAI's REASON_STOP, REASON_TOOL_CALLS,
		// YandexGPT's ALTERNATIVE_STATUS_FINAL, ALTERNATIVE_STATUS_TRUNCATED_FINAL.
		if rest, ok := strings.CutPrefix(words, prefix); ok {
			if c, ok := stopTokens[rest]; ok {
				return c
			}
			return stopWords(rest)
		}
	}
	return stopWords(words)
}

// tokenWords is a token written as words: max_tokens, MAX_TOKENS and maxTokens are all "max
// tokens".
func tokenWords(tok string) string {
	var w wordWriter
	w.add(tok)
	return w.b.String()
}

// geminiFinish is Gemini's FinishReason enum (google.ai.generativelanguage.v1beta), for a
// response serialised with numbers; vertexFinish is Vertex AI's (google.cloud.aiplatform.v1),
// which numbers the same names from 6 on differently.
var (
	geminiFinish = []string{"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER",
		"LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY"}
	vertexFinish = []string{"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER",
		"BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL"}
)

// stopTokenKeys are the keys a finish or stop token is read from, at any depth.
var stopTokenKeys = map[string]bool{
	"finish_reason": true, "finishReason": true, "stop_reason": true, "stopReason": true,
	"done_reason": true, "doneReason": true, "stop_type": true, "stopType": true,
	"completionReason": true, "completion_reason": true, "finish_details": true,
	"turnCompleteReason": true,                                          // Gemini Live: why a turn ended, beside turnComplete
	"ErrorCode":          true, "errorCode": true, "FinishReason": true, // Google ADK's events (Go, JS)
}

// terminalStatus are the statuses of a response object that end it; in_progress, queued and
// the like carry no token.
var terminalStatus = map[string]bool{
	"completed": true, "incomplete": true, "failed": true, "cancelled": true, "canceled": true,
	"expired": true, "succeeded": true, "requires_action": true, "errored": true,
	"timeout_exceeded": true, "cancellation_requested": true, // Mistral's batch jobs
}

// notStopped are the tokens that say the generation has not stopped yet (watsonx's
// not_finished, a stream's in-progress status): no stop token at all.
var notStopped = map[string]bool{
	"not finished": true, "in progress": true, "unfinished": true,
	"null":                       true, // DashScope writes a stream event's unfinished reason as the string "null"
	"alternative status partial": true, // YandexGPT's alternative still being generated
}

// stopGuardrailKey is the Bedrock InvokeModel body and LangChain kwargs key whose value
// INTERVENED says a guardrail blocked the answer.
const stopGuardrailKey = "amazon-bedrock-guardrailAction"

// maxStopDepth bounds how deep a fragment is walked.
const maxStopDepth = 8

// stopScan walks one fragment and keeps the first token read and the highest-ranked one.
type stopScan struct {
	provider  string
	first     string
	found     bool
	best      stopClass
	bestToken string
}

// add weighs one token.
func (s *stopScan) add(tok string, cls stopClass) {
	if !s.found {
		s.first, s.found = tok, true
		s.best, s.bestToken = cls, tok
		return
	}
	if cls.rank > s.best.rank {
		s.best, s.bestToken = cls, tok
	}
}

// token weighs a token value: a string, a number (Gemini's enum), or an object holding it
// ({"type":"length"} in SGLang, {"reason":"length"} in AI21, finish_details).
func (s *stopScan) token(v any) {
	switch x := v.(type) {
	case string:
		if x = strings.TrimSpace(x); x != "" {
			if words := tokenWords(x); !notStopped[words] {
				s.add(strings.ToLower(x), stopMeaning(words))
			}
		}
	case float64:
		names := geminiFinish
		if strings.HasPrefix(strings.ToLower(s.provider), "vertex") {
			names = vertexFinish
		}
		if n := int(x); float64(n) == x && n >= 0 && n < len(names) {
			s.token(names[n])
		} else {
			s.add("finish_reason_"+strconv.FormatFloat(x, 'f', -1, 64), classUnknown)
		}
	case map[string]any:
		// The AI SDK's {"unified","raw"}: the raw token tells the fact the unified one hides.
		for _, k := range [...]string{"raw", "type", "reason", "unified"} {
			if t, ok := x[k].(string); ok && t != "" {
				s.token(t)
				return
			}
		}
	}
}

// walk reads v, whose key in its parent is key.
func (s *stopScan) walk(v any, key string, depth int) {
	if depth > maxStopDepth {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			s.walk(it, key, depth+1)
		}
	case map[string]any:
		s.object(x, key, depth)
	}
}

// stopKeyOrder is the order an object's keys are read in, the rest following sorted: the
// LangChain holders first (as LangChain reads a message), then its own tokens, then the
// response shapes. Among tokens of one rank the first read decides, so the order is fixed.
var stopKeyOrder = []string{
	"response_metadata", "additional_kwargs", "finish_reason", "finishReason", "stop_reason", "stopReason", "done_reason", "doneReason",
	"stop_type", "stopType", "completionReason", "completion_reason", "finish_details",
	"choices", "candidates", "promptFeedback", "prompt_feedback",
	"delta", "message", "messageStop", "response",
}

// stopKeyRank is a key's place in stopKeyOrder.
var stopKeyRank = func() map[string]int {
	m := make(map[string]int, len(stopKeyOrder))
	for i, k := range stopKeyOrder {
		m[k] = i
	}
	return m
}()

// stopKey is one key of an object to read, with its place in the reading order.
type stopKey struct {
	rank int
	key  string
}

// object reads one object: its token keys, a Gemini block reason, a response object's status
// and its incomplete or status details, llama.cpp's stopped_* flags, the Bedrock guardrail
// action; then every value below it, in stopKeyOrder. Keys whose value is neither a token, a
// key read here, nor something to descend into are not looked at twice.
func (s *stopScan) object(m map[string]any, key string, depth int) {
	if end, ok := m["is_end"].(bool); ok && !end {
		return // an ERNIE stream event that is not the last: the answer goes on
	}
	if key == "" && depth == 0 {
		// A stream's error event (Anthropic's {"type":"error"}, OpenAI's {"error":{…}} alone, a
		// chat chunk carrying an error, as OpenRouter ends a stream that failed midway): the
		// stream ended on that error, read as an error.
		_, isChunk := m["choices"]
		if _, isErr := m["error"].(map[string]any); isErr && (m["type"] == "error" || len(m) == 1 || isChunk) {
			s.failure(m)
		}
	}
	if t, _ := m["type"].(string); strings.HasSuffix(t, "_call") && m["id"] != nil {
		// A Responses output item (mcp_call, function_call, web_search_call): its status and
		// error are the tool's, not the response's.
		return
	}
	if key == "" && depth == 0 {
		s.agentEnd(m)
	}
	if m["model"] == "<synthetic>" {
		// A message Claude Code wrote itself, not the model, whatever stop_reason it carries:
		// the "API Error: …" the turn ended on, or else the partial answer it keeps when the
		// user interrupted the turn.
		if t := firstText(m["content"]); strings.HasPrefix(t, "API Error") {
			s.weighText(t, byClient, orNothing)
		} else {
			s.add("interrupted", classCancelled)
		}
	}
	if e, ok := m["errorMessage"].(string); ok && e != "" && m["stopReason"] == "error" {
		s.weighText(e, byClient, orNothing) // pi's assistant message that ended on an error: the error says which
	}
	var buf [16]stopKey
	keys := buf[:0]
	// A response, the payload itself when it is an API object (a polled job's {id, status}),
	// or an object that says it is one of the kinds of response objects.
	responseLike := key == "response"
	if key == "" && depth == 0 {
		_, responseLike = m["id"]
		// A bare {"status":"cancelled"} the caller names as a provider's answer (a workflow
		// server's reply to a cancel); from no one in particular, a status is anything's.
		responseLike = responseLike || len(m) == 1 && s.provider != ""
	}
	for k, v := range m {
		switch k {
		case "object":
			responseLike = responseLike || v == "response" || v == "realtime.response" || v == "thread.run" ||
				v == "interaction" // Gemini's Interactions API
		case "incomplete_details", "status_details", "started_at", "expires_at":
			responseLike = responseLike || v != nil
		case "completed_at", "error", "output":
			responseLike = true
		}
		if l, _ := v.([]any); k == "__interrupt__" && len(l) > 0 {
			s.token("interrupt") // LangGraph stopped at interrupt(), waiting for a person
			continue
		}
		if on, _ := v.(bool); on && stopFlag(key, k) != "" {
			s.token(stopFlag(key, k)) // Gemini Live's turnComplete, ERNIE's is_truncated
			continue
		}
		rank, ordered := stopKeyRank[k]
		if !ordered {
			rank = len(stopKeyOrder)
		}
		switch v.(type) {
		case map[string]any, []any:
		default:
			if !ordered && !stopTokenKeys[k] && !stopScalarKey(k) && (k != "type" || key != "result" && key != "observation") {
				continue
			}
		}
		keys = append(keys, stopKey{rank, k})
	}
	slices.SortFunc(keys, func(a, b stopKey) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(a.key, b.key)
	})
	// A Responses stream event names its end in its type: response.failed, response.completed.
	if typ, _ := m["type"].(string); strings.HasPrefix(typ, "response.") && terminalStatus[strings.TrimPrefix(typ, "response.")] {
		s.token(strings.TrimPrefix(typ, "response."))
		if r, ok := m["response"].(map[string]any); ok && strings.HasSuffix(typ, ".failed") {
			s.failure(r)
		}
	}
	for _, sk := range keys {
		k := sk.key
		v := m[k]
		switch {
		case stopTokenKeys[k]:
			if t, _ := v.(string); strings.EqualFold(t, "guardrail_intervened") && onlyMasked(m["trace"], 0) {
				s.token("completed") // Converse: the guardrail only masked names in the answer it let through
				continue
			}
			s.token(v)
		case k == "action" && (v == "GUARDRAIL_INTERVENED" || v == "INTERVENED" && key == "guardrailTrace"):
			// ApplyGuardrail's answer and an Agents guardrail trace: the guardrail stepped in,
			// a block unless all it did was mask text.
			if !onlyMasked(m, 0) {
				s.add("guardrail_intervened", refusalBedrock)
			}
			continue
		case k == "type" && key == "observation" && (v == "FINISH" || v == "ASK_USER"):
			s.token("finish") // an Agents orchestration trace: the agent gave its final answer, or asked the user
		case k == "content" && refusalPart(v):
			s.add("refusal", refusalOpenAI) // a Responses message whose content is a refusal part
			continue
		case k == "blockReason" || k == "block_reason":
			// Gemini sets it only when it blocked the prompt; every value is a block.
			if t, ok := v.(string); ok && t != "" {
				s.add(strings.ToLower(t), refusalGoogle)
			} else if _, ok := v.(float64); ok {
				s.add("block_reason", refusalGoogle)
			}
		case k == "status" && key == "alternatives":
			// A YandexGPT alternative's status: ALTERNATIVE_STATUS_FINAL and its kin.
			if st, _ := v.(string); strings.HasPrefix(st, "ALTERNATIVE_STATUS_") {
				s.token(st)
			}
		case k == "status" && responseLike:
			if st, _ := v.(string); terminalStatus[strings.ToLower(st)] {
				if m["object"] == "interaction" && strings.EqualFold(st, "incomplete") {
					st = "interaction_incomplete"
				}
				s.token(st)
				if strings.EqualFold(st, "failed") {
					s.failure(m)
				}
			}
		case k == "refusal":
			// OpenAI's message.refusal: the model declined, whatever the finish says. A stream's
			// delta.refusal is one token of it on its way, no end yet.
			if t, ok := v.(string); ok && strings.TrimSpace(t) != "" && key != "delta" {
				s.add("refusal", refusalOpenAI)
			}
			continue
		case (k == "incomplete_details" || k == "status_details") && v != nil:
			if d, ok := v.(map[string]any); ok {
				if r, ok := d["reason"].(string); ok && r != "" {
					s.token(r)
				}
			}
			continue
		case k == "stopped_eos" || k == "stopped_limit" || k == "stopped_word":
			if b, _ := v.(bool); b {
				s.token(strings.TrimPrefix(k, "stopped_"))
			}
		case k == "type" && key == "result":
			// A Message Batches result: succeeded, errored, canceled or expired; an errored
			// one's error says why.
			if t, _ := v.(string); terminalStatus[strings.ToLower(t)] {
				s.token(t)
				if strings.EqualFold(t, "errored") {
					s.failure(m)
				}
			}
		case k == "processing_status" && m["type"] == "message_batch":
			// A Message Batch: ended, or being cancelled; in_progress is no end.
			switch v {
			case "ended":
				s.token("completed")
			case "canceling":
				s.token("cancelled")
			}
		case k == "state":
			// A batch or job's terminal state, with its enum's prefix: Gemini's
			// BATCH_STATE_SUCCEEDED, Vertex's JOB_STATE_FAILED; PENDING and RUNNING are no end.
			if st, _ := v.(string); strings.HasPrefix(st, "BATCH_STATE_") || strings.HasPrefix(st, "JOB_STATE_") {
				if rest := st[strings.Index(st, "STATE_")+len("STATE_"):]; terminalStatus[strings.ToLower(rest)] {
					s.token(rest)
				}
			}
		case k == stopGuardrailKey && v == "INTERVENED" && !onlyMasked(m["amazon-bedrock-trace"], 0):
			s.add("guardrail_intervened", refusalBedrock)
		case k == "error" && key == "" && depth == 0 && m["custom_id"] != nil:
			// A Batch API output line whose request never ran: its error code is its end.
			if e, ok := v.(map[string]any); ok {
				if c, ok := e["code"].(string); ok && c != "" {
					s.token(c)
				}
			}
			continue
		}
		if !stopOpaque[k] {
			s.walk(v, k, depth+1)
		}
	}
}

// stopFlag is the token a boolean key stands for when it is true, in an object under parent:
// Gemini Live's serverContent flags (elsewhere "interrupted" is a tool result's, not the
// turn's) and ERNIE's is_truncated. "" when the key is no stop flag there.
func stopFlag(parent, k string) string {
	switch {
	case k == "is_truncated":
		return "truncated"
	case parent != "serverContent":
		return ""
	case k == "turnComplete", k == "generationComplete":
		return "completed"
	case k == "interrupted":
		return "interrupted"
	}
	return ""
}

// onlyMasked reports whether a Bedrock guardrail trace shows actions and every one of them only
// masked text (ANONYMIZED), so the guardrail that intervened withheld nothing. The guardrail's
// own verdict (INTERVENED, GUARDRAIL_INTERVENED) is no assessment's action.
func onlyMasked(trace any, depth int) bool {
	masked, blocked := guardrailActions(trace, depth)
	return masked && !blocked
}

// refusalPart reports whether content, a message's content list, holds a refusal part
// ({"type":"refusal","refusal":"…"}, OpenAI's Responses API).
func refusalPart(content any) bool {
	parts, _ := content.([]any)
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok && m["type"] == "refusal" {
			if t, _ := m["refusal"].(string); strings.TrimSpace(t) != "" {
				return true
			}
		}
	}
	return false
}

func guardrailActions(v any, depth int) (masked, blocked bool) {
	if depth > maxStopDepth {
		return false, false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if a, ok := e.(string); ok && k == "action" {
				masked = masked || a == "ANONYMIZED"
				blocked = blocked || a != "ANONYMIZED" && a != "NONE" && a != "INTERVENED" && a != "GUARDRAIL_INTERVENED"
				continue
			}
			m, b := guardrailActions(e, depth+1)
			masked, blocked = masked || m, blocked || b
		}
	case []any:
		for _, e := range x {
			m, b := guardrailActions(e, depth+1)
			masked, blocked = masked || m, blocked || b
		}
	}
	return masked, blocked
}

// stopScalarKey reports whether object reads the key's value when it is not an object or a
// list.
func stopScalarKey(k string) bool {
	switch k {
	case "blockReason", "block_reason", "status", "refusal", "stopped_eos", "stopped_limit", "stopped_word", stopGuardrailKey, "action",
		"processing_status", "state",
		"turnComplete", "generationComplete", "interrupted", "is_truncated":
		return true
	}
	return false
}

// stopOpaque are the keys whose values are content (the answer, a tool's input or result),
// where a finish token belongs to something else (a tool's own model call), never the turn.
var stopOpaque = map[string]bool{
	"content": true, "parts": true, "tool_calls": true, "input": true, "arguments": true, "output_text": true,
}

// failure reads the error a failed response object carries (error, last_error, or
// status_details.error) as an error, so a failed response that says insufficient_quota or
// rate_limit_exceeded means what the same error means to [Classify].
func (s *stopScan) failure(m map[string]any) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		e, _ = m["last_error"].(map[string]any)
	}
	if e == nil {
		if d, ok := m["status_details"].(map[string]any); ok {
			e, _ = d["error"].(map[string]any)
		}
	}
	var api APIError
	switch x := m["error"].(type) {
	case string:
		api.Message = x
	}
	if inner, ok := e["error"].(map[string]any); ok && e["type"] == "error" {
		e = inner // a Message Batches result's error: Anthropic's envelope, {"type":"error","error":{…}}
	}
	if e != nil {
		api.Type, _ = e["type"].(string)
		api.Code, _ = e["code"].(string)
		api.Message, _ = e["message"].(string)
		if n, ok := e["code"].(float64); ok && n >= 400 && n < 600 && e["status"] != nil {
			api.Status = int(n) // Google's {"code":429,"status":"RESOURCE_EXHAUSTED",…}
		}
		if _, ok := e["details"]; ok {
			// Google's details (a QuotaFailure's quota ids, a RetryInfo) say which limit it was.
			if b, err := json.Marshal(map[string]any{"error": e}); err == nil {
				api.Body = string(b)
			}
		}
	}
	if api.Type == "" && api.Code == "" && api.Message == "" {
		return
	}
	s.weigh(strings.ToLower(cmp.Or(api.Code, api.Type, "failed")), &api, byServer, orNothing)
}

// Who reported an error a fragment carries, for [stopScan.weigh]: a response a server sent (so
// the caller's connection held, and a transport failure it names is the server's, to its
// upstream), or the agent CLI itself, of its own run (a transport failure is its own).
const (
	byServer = true
	byClient = false
)

// Whether [stopScan.weigh] takes an error it cannot name as the provider's, or leaves it out.
const (
	orProvider = true
	orNothing  = false
)

// weigh weighs an error a fragment carries, as [Classify] reads it, under tok.
func (s *stopScan) weigh(tok string, a *APIError, served, unnamed bool) {
	c := Classify(a).Category
	switch {
	case c == NetworkError && served:
		s.add(tok, stopClass{ProviderError, rankFailure, ""})
	case c != Unknown:
		s.add(tok, stopClass{c, rankFailure, ""})
	case unnamed:
		s.add(tok, classProvider)
	}
}

// weighText is weigh of an error's text alone.
func (s *stopScan) weighText(v any, served, unnamed bool) {
	msg, _ := v.(string)
	s.weigh("failed", &APIError{Message: msg}, served, unnamed)
}

// agentEnd reads m when it is the event an agent CLI, an agent framework or a harness's session
// file writes as a run or a turn ends: Claude Code's and the Agent SDK's {"type":"result"}
// (subtype, is_error, terminal_reason, api_error_status, the result text of a run that failed)
// and its transcript's system and user records; Gemini CLI's stream-json result and chat
// recording; Codex exec's turn.* events and rollout event_msg; Copilot CLI's session events;
// opencode's step-finish, step events and message info; AG-UI's RUN_*; the AI SDK UI stream's
// error part; Coze's verbose generate_answer_finish; Antigravity's ERROR_MESSAGE; and, by their
// keys, OpenHands' agent_state_changed, Cline's attempt_completion, a SWE-agent trajectory's
// info, the Agents SDK's RunState, smolagents' RunResult, and a service's bare error body
// ({"error_code":…, "error_message":…}, Coze's and Baidu's).
func (s *stopScan) agentEnd(m map[string]any) {
	typ, _ := m["type"].(string)
	switch typ {
	case "result":
		if m["subtype"] != nil {
			s.claudeResult(m)
		} else if st, _ := m["status"].(string); st == "success" {
			s.token("completed") // Gemini CLI's stream-json result
		} else if st == "error" {
			s.failure(m)
			s.token("error")
		}
		return
	case "system":
		switch m["subtype"] {
		case "turn_duration":
			s.token("completed") // Claude Code writes it once a turn has ended
		case "stop_hook_summary":
			if m["preventedContinuation"] == false {
				s.token("completed") // the Stop hooks ran and none kept the agent going
			}
		case "api_error":
			s.claudeAPIError(m)
		}
		return
	case "user":
		// Claude Code writes "[Request interrupted by user]" as the user's turn when Esc
		// stopped the agent.
		if msg, ok := m["message"].(map[string]any); ok && strings.HasPrefix(firstText(msg["content"]), "[Request interrupted by user") {
			s.token("interrupted")
		}
		return
	case "event_msg":
		// A Codex rollout's event: task_complete ends the turn, turn_aborted names why it was
		// stopped, error says why it failed.
		if p, ok := m["payload"].(map[string]any); ok {
			switch p["type"] {
			case "task_complete":
				s.token("completed")
			case "turn_aborted":
				s.token(cmp.Or(p["reason"], any("aborted")))
			case "error":
				s.weighText(p["message"], byClient, orProvider)
			}
		}
		return
	case "session.error", "subagent.failed":
		// Copilot CLI's session error (its message and status) and a sub-agent that failed:
		// the CLI's own report.
		if d, ok := m["data"].(map[string]any); ok {
			var a APIError
			a.Message, _ = d["message"].(string)
			if a.Message == "" {
				a.Message, _ = d["error"].(string)
			}
			if st, ok := d["statusCode"].(float64); ok {
				a.Status = int(st)
			}
			s.weigh("session_error", &a, byClient, orProvider)
		}
		return
	case "assistant.turn_end", "session.task_complete":
		s.token("completed") // Copilot CLI's end of a turn and of its task
		return
	case "ERROR_MESSAGE":
		s.weighText(m["content"], byClient, orProvider) // an Antigravity trajectory's error step
		return
	case "error":
		if m["errorText"] != nil {
			s.weighText(m["errorText"], byServer, orProvider) // the AI SDK UI stream's error part
		} else if m["content"] != nil {
			s.weighText(m["content"], byClient, orProvider) // Gemini CLI's chat recording
		}
		return
	case "info":
		// Gemini CLI's chat recording: an info message that says the request was cancelled,
		// or that it failed without saying why.
		if msg, _ := m["content"].(string); msg != "" {
			if Classify(&APIError{Message: msg}).Category == Cancelled {
				s.add("cancelled", classCancelled)
			} else if strings.Contains(strings.ToLower(msg), "request failed") {
				s.add("failed", classUnknown)
			}
		}
		return
	case "turn.completed":
		s.token("completed")
		return
	case "turn.failed":
		s.failure(m)
		if msg, ok := m["message"].(string); ok && msg != "" {
			s.weighText(msg, byClient, orProvider) // "Idle timeout reached": the CLI's own words for why
		} else {
			s.token("failed")
		}
		return
	case "RUN_FINISHED":
		s.token("finished") // AG-UI's run end
		return
	case "RUN_ERROR":
		s.weighText(m["message"], byServer, orProvider) // AG-UI's failed run: its text is the error
		return
	case "verbose":
		// Coze's verbose message, whose content is a JSON object of its own: its
		// generate_answer_finish marks the answer finished.
		var inner struct {
			MsgType string `json:"msg_type"`
		}
		if c, _ := m["content"].(string); json.Unmarshal([]byte(c), &inner) == nil && inner.MsgType == "generate_answer_finish" {
			s.token("finished")
		}
		return
	case "step-finish":
		s.token(m["reason"]) // opencode's step part
		return
	case "session.next.step.ended":
		if d, ok := m["data"].(map[string]any); ok {
			s.token(d["finish"])
		}
		return
	}
	// Shapes named by their keys, not a type.
	switch {
	case m["observation"] == "agent_state_changed":
		// OpenHands: the agent finished, waits for the user, failed, or was stopped.
		if x, ok := m["extras"].(map[string]any); ok {
			switch x["agent_state"] {
			case "finished", "awaiting_user_input":
				s.token("completed")
			case "error":
				s.token("error")
			case "stopped":
				s.token("cancelled")
			case "paused":
				s.add("paused", classSuspended)
			}
		}
	case m["role"] == "assistant" && m["finish"] != nil:
		s.token(m["finish"]) // an opencode assistant message's info: its finish
	case m["role"] == "assistant" && toolUsed(m["content"], "attempt_completion"):
		s.token("completed") // Cline's and Roo Code's way to end a task: the attempt_completion tool
	case m["exit_status"] != nil && m["submission"] != nil:
		// A SWE-agent trajectory's info: the agent submitted. Its other exit statuses are read
		// by harness/sweagent, which owns the format.
		if st, _ := m["exit_status"].(string); strings.EqualFold(st, "submitted") {
			s.token("completed")
		}
	case m["current_step"] != nil || m["currentStep"] != nil:
		// The Agents SDK's RunState: paused for an approval, finished, or still running
		// (next_step_run_again, no end).
		step, _ := m["current_step"].(map[string]any)
		if step == nil {
			step, _ = m["currentStep"].(map[string]any)
		}
		if t, _ := step["type"].(string); t == "next_step_interruption" || t == "next_step_final_output" {
			s.token(t)
		}
	case m["state"] != nil && m["steps"] != nil:
		// smolagents' RunResult: success, or max_steps_error when the steps ran out.
		if st, _ := m["state"].(string); st != "" {
			s.token(st)
		}
	case m["error_code"] != nil && m["error"] == nil:
		msg, _ := m["error_message"].(string)
		if msg == "" {
			msg, _ = m["error_msg"].(string)
		}
		if msg != "" {
			code := fmt.Sprint(m["error_code"])
			s.weigh("error_code_"+code, &APIError{Code: code, Message: msg}, byClient, orProvider)
		}
	}
}

// claudeResult reads Claude Code's and the Agent SDK's {"type":"result"}: the result text and
// the API status of a run that failed, then its terminal_reason or subtype.
func (s *stopScan) claudeResult(m map[string]any) {
	sub, _ := m["subtype"].(string)
	failed, _ := m["is_error"].(bool)
	if r, _ := m["result"].(string); failed && r != "" {
		s.weighText(r, byClient, orNothing)
	}
	if st, ok := m["api_error_status"].(float64); failed && ok {
		s.weigh("api_error_status_"+strconv.Itoa(int(st)), &APIError{Status: int(st)}, byClient, orNothing)
	}
	switch {
	case sub == "success" && !failed && m["terminal_reason"] == nil:
		s.token("completed")
	case m["terminal_reason"] != nil:
		s.token(m["terminal_reason"]) // aborted_tools, api_error: read by their words
	case sub != "" && sub != "success":
		s.token(sub) // error_max_turns, error_during_execution
	}
}

// claudeAPIError reads Claude Code's transcript record of an API error it retried: its status
// and the body the API answered.
func (s *stopScan) claudeAPIError(m map[string]any) {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return
	}
	var a APIError
	if st, ok := e["status"].(float64); ok {
		a.Status = int(st)
	}
	if b, ok := e["error"].(map[string]any); ok {
		if j, err := json.Marshal(b); err == nil {
			a.Body = string(j)
		}
	}
	s.weigh("api_error", &a, byServer, orNothing)
}

// toolUsed reports whether content, a message's blocks, holds a tool_use block of the tool name.
func toolUsed(content any, name string) bool {
	blocks, _ := content.([]any)
	for _, b := range blocks {
		if m, ok := b.(map[string]any); ok && m["type"] == "tool_use" && m["name"] == name {
			return true
		}
	}
	return false
}

// firstText returns the text of content: a string, or its first text block's.
func firstText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		for _, b := range c {
			if m, ok := b.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					return t
				}
			}
		}
	}
	return ""
}

// ClassifyStop is the metadata feeder, the one entry point for stop metadata. payload is a
// bare stop or finish token (a string), or a decoded JSON response fragment in any shape:
// an OpenAI chat completion or chunk, a Responses or Realtime object or event, an Anthropic
// message or event, a Gemini response (string or numeric enum), Bedrock Converse or InvokeModel,
// Cohere, Mistral, Ollama, llama.cpp (stop_type, stopped_*), TGI details, LM Studio, SGLang and
// vLLM, a LangChain message (response_metadata, additional_kwargs).
//
// Tokens are read from the keys finish_reason, finishReason, stop_reason, stopReason,
// done_reason, doneReason, stop_type, stopType, completionReason and finish_details at any
// depth; from a Gemini promptFeedback.blockReason (a refusal whatever its value); from the
// status and incomplete_details or status_details reason of a response object; from
// llama.cpp's stopped_eos, stopped_limit and stopped_word; from the Bedrock guardrail action.
// Every token is weighed and the highest-ranked kind decides: refusal, then truncation, context
// overflow, provider error, cancellation, suspension, then an ordinary finish ([Completed]).
// A fragment whose tokens are all unrecognised is [Unknown]. Detail is the deciding token,
// lower-cased.
//
// ok is false when the payload carries no token at all (a mid-stream chunk whose finish is
// null): "no stop recorded", which is not the same fact as an unknown token.
//
// Provider is the family a refusal token names; else the provider argument, trimmed and
// lower-cased; else the one the fragment's shape names unambiguously.
func ClassifyStop(provider string, payload any) (c Classification, ok bool) {
	s := stopScan{provider: provider}
	if tok, isToken := payload.(string); isToken {
		s.token(tok)
	} else {
		s.walk(payload, "", 0)
	}
	if !s.found {
		return Classification{}, false
	}
	p := strings.ToLower(strings.TrimSpace(provider))
	if s.best.category == ContentRefusal && s.best.family != "" {
		p = s.best.family
	} else if p == "" {
		p = stopInferProvider(payload)
	}
	return Classification{Category: s.best.category, Provider: p, Detail: s.bestToken}, true
}

// readStopToken returns the deciding stop or finish token of fragment, as [ClassifyStop]
// reads it; ok is false when it carries none.
func readStopToken(fragment any) (string, bool) {
	c, ok := ClassifyStop("", fragment)
	return c.Detail, ok
}

// stopInferProvider returns the provider fragment's shape names unambiguously, or "".
func stopInferProvider(fragment any) string {
	top, ok := fragment.(map[string]any)
	if !ok {
		return ""
	}
	if rm, ok := top["response_metadata"].(map[string]any); ok {
		if p, ok := rm["model_provider"].(string); ok && p != "" {
			return strings.ToLower(p)
		}
	}
	for _, h := range []any{top, top["message"], top["response"]} {
		if m, ok := h.(map[string]any); ok {
			if p := stopShapeProvider(m); p != "" {
				return p
			}
		}
	}
	return ""
}

// stopShapeProvider returns the provider one holder's keys name, or "".
func stopShapeProvider(h map[string]any) string {
	has := func(k string) bool { _, ok := h[k]; return ok }
	typ, _ := h["type"].(string)
	_, finishIsString := h["finish_reason"].(string)
	_, messageIsMap := h["message"].(map[string]any)
	switch {
	case has("candidates"), has("promptFeedback"), has("prompt_feedback"):
		return "google"
	case h["object"] == "response", strings.HasPrefix(typ, "response."):
		return "openai"
	case typ == "message", typ == "message_start", typ == "message_delta", typ == "message_stop":
		return "anthropic"
	case strings.HasPrefix(typ, "message-"), finishIsString && messageIsMap:
		return "cohere"
	case has("stopReason") && has("output"), has("messageStop"), has(stopGuardrailKey):
		return "bedrock"
	case has("done_reason"), has("doneReason"):
		return "ollama"
	case has("stop_type"), has("stopped_eos"):
		return "llama.cpp"
	}
	return ""
}
