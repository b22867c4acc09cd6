package termination

import "strings"

// This file is the metadata feeder: it reads the stop or finish token a provider put on a
// response and says what it means. It reads decoded JSON (map[string]any and []any, as
// encoding/json produces them) and never fails: a fragment it cannot read carries no token.
// The reading order is documented on ReadStopToken, the meaning of tokens on ClassifyStop, and
// each decision on a gap the origin left open next to its token in stopClasses.

// Rank of each kind of token: when one fragment carries several, the highest rank decides.
const (
	stopRankOrdinary        = 0
	stopRankSuspended       = 10
	stopRankCancelled       = 20
	stopRankProviderError   = 30
	stopRankContextOverflow = 40
	stopRankTruncated       = 50
	// Refusals outrank everything; within them the origin's rule order holds.
	stopRankContentFilter   = 107
	stopRankRefusal         = 106
	stopRankGuardrail       = 105
	stopRankContentFiltered = 104
	stopRankGeminiSafety    = 103
	stopRankPromptBlocked   = 102
	stopRankOtherRefusal    = 101
)

// stopClass is what a recognised token means.
type stopClass struct {
	category Category
	// family is the provider family a refusal token names (the origin's refusal provider);
	// empty when the token names none.
	family string
	rank   int
}

// stopGuardrailKey is the Bedrock InvokeModel body and LangChain kwargs key whose value
// INTERVENED says a guardrail blocked the answer.
const stopGuardrailKey = "amazon-bedrock-guardrailAction"

// stopClasses maps every recognised lower-case token to its meaning. It is never written after
// initialisation. Tokens absent from it are unknown.
var stopClasses = map[string]stopClass{
	// Ordinary ends: the model finished of its own accord. Classified by the site that ends the
	// turn; the feeder does not report them.
	"stop":          {Completed, "", stopRankOrdinary}, // OpenAI family, Mistral, Ollama, Gemini STOP
	"end_turn":      {Completed, "", stopRankOrdinary}, // Anthropic, Bedrock
	"stop_sequence": {Completed, "", stopRankOrdinary}, // Anthropic, Bedrock, Cohere STOP_SEQUENCE
	"tool_use":      {Completed, "", stopRankOrdinary}, // Anthropic, Bedrock
	"tool_calls":    {Completed, "", stopRankOrdinary}, // OpenAI family, Mistral (the origin also lists Gemini TOOL_CALLS)
	"function_call": {Completed, "", stopRankOrdinary}, // OpenAI, legacy functions
	"tool_call":     {Completed, "", stopRankOrdinary}, // Cohere TOOL_CALL
	"complete":      {Completed, "", stopRankOrdinary}, // Cohere COMPLETE
	"completed":     {Completed, "", stopRankOrdinary}, // OpenAI Responses status

	// Refusals: the model or the provider's safety system declined.
	"content_filter":       {ContentRefusal, "openai", stopRankContentFilter},    // OpenAI family, Azure, Responses incomplete_details
	"refusal":              {ContentRefusal, "anthropic", stopRankRefusal},       // Anthropic
	"guardrail_intervened": {ContentRefusal, "bedrock", stopRankGuardrail},       // Bedrock Converse
	"content_filtered":     {ContentRefusal, "bedrock", stopRankContentFiltered}, // Bedrock Converse (EXT-41)
	// Gemini's content-filter set, both spellings, as @langchain/google lists it.
	"safety":                   {ContentRefusal, "google", stopRankGeminiSafety},
	"recitation":               {ContentRefusal, "google", stopRankGeminiSafety},
	"language":                 {ContentRefusal, "google", stopRankGeminiSafety},
	"blocklist":                {ContentRefusal, "google", stopRankGeminiSafety},
	"prohibited_content":       {ContentRefusal, "google", stopRankGeminiSafety},
	"prohibited-content":       {ContentRefusal, "google", stopRankGeminiSafety},
	"spii":                     {ContentRefusal, "google", stopRankGeminiSafety},
	"image_safety":             {ContentRefusal, "google", stopRankGeminiSafety},
	"image-safety":             {ContentRefusal, "google", stopRankGeminiSafety},
	"image_prohibited_content": {ContentRefusal, "google", stopRankGeminiSafety},
	"image-prohibited-content": {ContentRefusal, "google", stopRankGeminiSafety},
	"image_recitation":         {ContentRefusal, "google", stopRankGeminiSafety},
	"image-recitation":         {ContentRefusal, "google", stopRankGeminiSafety},
	// Gap, decided: Cohere's ERROR_TOXIC says the generation was stopped as toxic, the same
	// fact as a content filter (Vercel maps it to content-filter). The token is Cohere's alone.
	"error_toxic": {ContentRefusal, "cohere", stopRankOtherRefusal},
	// Gap, decided: Z.ai's sensitive says its safety review intercepted the content. The token
	// names no family (Z.ai serves it through the OpenAI-compatible shape).
	"sensitive": {ContentRefusal, "", stopRankOtherRefusal},

	// Truncation: cut off against the output cap. No family: OpenAI and Ollama say length;
	// Anthropic, Bedrock, Gemini and Cohere say max_tokens.
	"length":            {OutputTruncated, "", stopRankTruncated},
	"max_tokens":        {OutputTruncated, "", stopRankTruncated},
	"maxtokens":         {OutputTruncated, "", stopRankTruncated},
	"model_length":      {OutputTruncated, "", stopRankTruncated}, // Mistral
	"max_output_tokens": {OutputTruncated, "", stopRankTruncated}, // Gap, decided: OpenAI Responses incomplete_details.reason; the same fact as length.

	// Gap, decided: Anthropic and Bedrock (and Z.ai) end a 200 with model_context_window_exceeded
	// when the window, not the output cap, ran out. The origin returns nothing and Vercel says
	// length; both hide the fact. It is a context overflow: the honest remedy is reduce-context,
	// while output_truncated's change-request would invite a "continue" that overflows again.
	"model_context_window_exceeded": {ContextOverflow, "", stopRankContextOverflow},

	// Gap, decided: a malformed model output is provider_error, not tool_error. No tool ran and
	// the request was valid; what failed is the provider's generation, which is
	// nondeterministic, so sending the same request again is sane (provider_error's posture;
	// Gemini CLI retries these streams as they are, and Vercel maps Gemini's to error).
	// tool_error's posture would forbid that retry, and it names a failure that did not happen.
	"malformed_function_call": {ProviderError, "", stopRankProviderError}, // Gemini
	"unexpected_tool_call":    {ProviderError, "", stopRankProviderError}, // Gemini: a tool call with no tools enabled; Gemini CLI treats it with the above
	"malformed_model_output":  {ProviderError, "", stopRankProviderError}, // Bedrock Converse
	"malformed_tool_use":      {ProviderError, "", stopRankProviderError}, // Bedrock Converse
	// Gap, decided: Cohere's ERROR is "something went wrong when generating the reply", a fault
	// on the provider's side (Vercel: error). Z.ai's network_error is its model-inference
	// exception, delivered on a completed HTTP response: a provider fault, not network_error,
	// which this taxonomy keeps for requests that never completed.
	"error":         {ProviderError, "", stopRankProviderError},
	"network_error": {ProviderError, "", stopRankProviderError},

	// A Responses object cancelled through the API: the user stopped it.
	"cancelled": {Cancelled, "", stopRankCancelled},

	// Gap, decided: Anthropic's pause_turn parks a long server-tool turn; the response is to be
	// sent back as it is so the model continues. That is suspended (remedy resume): not an
	// ordinary end (Vercel's stop would read a parked turn as finished), not a failure.
	"pause_turn": {Suspended, "", stopRankSuspended},
}

// stopKnownSpellings maps each recognised token, in lower and upper case, to its lower-case
// form, so the common spellings are lower-cased without allocating. Never written after
// initialisation.
var stopKnownSpellings = func() map[string]string {
	m := make(map[string]string, 2*len(stopClasses)+8)
	add := func(tok string) {
		m[tok] = tok
		m[strings.ToUpper(tok)] = tok
	}
	for tok := range stopClasses {
		add(tok)
	}
	// Tokens outside the table that providers send often.
	for _, tok := range []string{"other", "finish_reason_unspecified", "incomplete", "failed"} {
		add(tok)
	}
	return m
}()

// stopLower returns tok lower-cased.
func stopLower(tok string) string {
	if s, ok := stopKnownSpellings[tok]; ok {
		return s
	}
	return strings.ToLower(tok)
}

// stopTokenKeys are the keys a token is read from, in reading order.
var stopTokenKeys = [...]string{"finish_reason", "finishReason", "stop_reason", "stopReason", "done_reason", "doneReason"}

// stopScan walks one fragment in reading order, keeping the first token and the
// highest-ranked interesting one.
type stopScan struct {
	// firstOnly stops the walk at the first token.
	firstOnly bool

	first string // the first token read
	found bool   // a token was read

	best      stopClass // the highest-ranked interesting token's meaning
	bestToken string    // and the token (the detail)
	hasBest   bool
}

// add weighs one value. blocked says it is a Gemini prompt block reason, which is a refusal
// whatever its token. It reports whether the walk should stop.
func (s *stopScan) add(v any, blocked bool) bool {
	raw, ok := v.(string)
	if !ok || raw == "" {
		return false
	}
	tok := stopLower(raw)
	if !s.found {
		s.first, s.found = tok, true
	}
	if s.firstOnly {
		return true
	}
	cls, known := stopClasses[tok]
	if blocked {
		// Gemini sets promptFeedback.blockReason only when it blocked the prompt; every value,
		// OTHER and BLOCK_REASON_UNSPECIFIED included, is a block.
		cls, known = stopClass{ContentRefusal, "google", stopRankPromptBlocked}, true
	}
	if known && cls.rank > stopRankOrdinary {
		s.consider(cls, tok)
	}
	return false
}

// consider keeps cls when it outranks what was kept.
func (s *stopScan) consider(cls stopClass, tok string) {
	if !s.hasBest || cls.rank > s.best.rank {
		s.best, s.bestToken, s.hasBest = cls, tok, true
	}
}

// walk reads fragment in the reading order documented on ReadStopToken.
func (s *stopScan) walk(fragment any) {
	top, ok := fragment.(map[string]any)
	if !ok {
		return
	}
	rm, _ := top["response_metadata"].(map[string]any)
	ak, _ := top["additional_kwargs"].(map[string]any)
	holders := [...]map[string]any{rm, ak, top}
	for _, k := range stopTokenKeys {
		for _, h := range holders {
			if s.add(h[k], false) {
				return
			}
		}
	}
	if s.responses(top) || s.list(top["choices"]) || s.list(top["candidates"]) || s.promptBlock(top) {
		return
	}
	for _, k := range [...]string{"delta", "message", "messageStop", "response"} {
		if h, ok := top[k].(map[string]any); ok {
			if s.keys(h) || s.responses(h) {
				return
			}
		}
	}
	if s.firstOnly {
		return
	}
	for _, h := range holders {
		if v, ok := h[stopGuardrailKey].(string); ok && v == "INTERVENED" {
			s.consider(stopClasses["guardrail_intervened"], "guardrail_intervened")
			return
		}
	}
}

// keys reads the token keys of one holder.
func (s *stopScan) keys(h map[string]any) bool {
	for _, k := range stopTokenKeys {
		if s.add(h[k], false) {
			return true
		}
	}
	return false
}

// list reads the token keys of each map in v, when v is a list.
func (s *stopScan) list(v any) bool {
	items, _ := v.([]any)
	for _, it := range items {
		if h, ok := it.(map[string]any); ok && s.keys(h) {
			return true
		}
	}
	return false
}

// responses reads an OpenAI Responses object: incomplete_details.reason, else its terminal
// status.
func (s *stopScan) responses(h map[string]any) bool {
	details, hasDetails := h["incomplete_details"]
	if !hasDetails && h["object"] != "response" {
		return false
	}
	if d, ok := details.(map[string]any); ok {
		if r, ok := d["reason"].(string); ok && r != "" {
			return s.add(r, false)
		}
	}
	status, _ := h["status"].(string)
	switch stopLower(status) {
	case "completed", "incomplete", "failed", "cancelled":
		return s.add(status, false)
	}
	return false
}

// promptBlock reads Gemini's prompt block reason.
func (s *stopScan) promptBlock(top map[string]any) bool {
	for _, k := range [...]string{"promptFeedback", "prompt_feedback"} {
		if pf, ok := top[k].(map[string]any); ok {
			for _, bk := range [...]string{"blockReason", "block_reason"} {
				if s.add(pf[bk], true) {
					return true
				}
			}
		}
	}
	return false
}

// ReadStopToken returns the first stop or finish token fragment carries, lower-cased
// (MAX_TOKENS reads as max_tokens). ok is false when it carries none: no key, a null, an empty
// string, a value that is not a string, or a fragment that is not a JSON object. This is the
// token a finish-reason [Observation] records.
//
// Tokens are read in this order:
//
//  1. The keys finish_reason, finishReason, stop_reason, stopReason, done_reason, doneReason,
//     each key looked up in response_metadata, then additional_kwargs, then the top level
//     (key-major, as the origin reads a LangChain message). The top level is also where the raw
//     Anthropic Messages (stop_reason), Bedrock Converse (stopReason), Cohere v2
//     (finish_reason) and Ollama (done_reason) bodies keep theirs.
//  2. An OpenAI Responses object (object "response", or a map with incomplete_details):
//     incomplete_details.reason, else the status when it is terminal (completed, incomplete,
//     failed, cancelled; in_progress and queued carry no token).
//  3. Each element of choices (OpenAI chat completions and the OpenAI-compatible APIs: Groq,
//     Mistral, DeepSeek, OpenRouter; a streamed chunk's choices too), then each element of
//     candidates (Gemini), with the keys of step 1.
//  4. Gemini's promptFeedback.blockReason (or prompt_feedback.block_reason): the prompt itself
//     was blocked.
//  5. One level down, the event and envelope holders delta (an Anthropic message_delta or a
//     Cohere message-end event), message (an Anthropic message_start event, a Claude Code
//     transcript line), messageStop (a Bedrock ConverseStream event) and response (an OpenAI
//     Responses stream event), each with steps 1 and 2.
func ReadStopToken(fragment any) (token string, ok bool) {
	s := stopScan{firstOnly: true}
	s.walk(fragment)
	return s.first, s.found
}

// DetectStopMetadata is the metadata feeder: it reports the classification of fragment only
// when its stop metadata says the turn ended for a reason worth recording (a refusal, a
// truncation, a context overflow, a malformed output or provider-side generation error, a
// cancellation, a parked turn). It returns false for an ordinary finish, an unknown token and
// no token at all: ordinary ends are classified by the site that ends the turn, and an unknown
// token is no reason to act. When it reports, the classification is the one [ClassifyStop]
// gives.
func DetectStopMetadata(provider string, fragment any) (Classification, bool) {
	c, interesting, _ := classifyStop(provider, fragment)
	if !interesting {
		return Classification{}, false
	}
	return c, true
}

// ClassifyStop classifies the stop metadata of fragment, a decoded JSON response fragment
// (map[string]any as encoding/json produces it) in any of the shapes the providers use: an
// OpenAI chat completion or streamed chunk, an OpenAI Responses object or stream event, an
// Anthropic message or message_delta event, a Gemini generateContent response or stream chunk,
// a Bedrock Converse response or messageStop event, a Cohere v2 chat response or message-end
// event, an Ollama /api/chat object, any OpenAI-compatible API (Groq, Mistral, DeepSeek,
// OpenRouter), or a LangChain message (response_metadata, additional_kwargs). Tokens are found
// as [ReadStopToken] documents. One more signal is read: the Bedrock guardrail action
// ("amazon-bedrock-guardrailAction": "INTERVENED", exact case) in response_metadata,
// additional_kwargs or the top level, a refusal with detail guardrail_intervened.
//
// ok is false when fragment carries no stop signal at all.
//
// Every token is weighed, not only the first, so that a benign token cannot hide a telling one
// anywhere (the origin keeps stop_reason and stopReason apart for this reason; ClassifyStop
// extends the rule to every key and holder). The highest-ranked kind wins, and the first token
// read among equals, in this order (refusal first, then truncation, as the origin):
//
//   - content_refusal, among themselves in the origin's rule order: content_filter (provider
//     openai), refusal (anthropic), guardrail_intervened or the guardrail action (bedrock),
//     content_filtered (bedrock), the Gemini safety set (google: safety, recitation, language,
//     blocklist, prohibited_content, spii, image_safety, image_prohibited_content,
//     image_recitation, and the hyphenated spellings), any Gemini prompt block reason (google),
//     then Cohere error_toxic (cohere) and Z.ai sensitive;
//   - output_truncated: length, max_tokens, maxtokens, model_length (Mistral),
//     max_output_tokens (OpenAI Responses);
//   - context_overflow: model_context_window_exceeded (Anthropic, Bedrock);
//   - provider_error: malformed_function_call, unexpected_tool_call (Gemini),
//     malformed_model_output, malformed_tool_use (Bedrock), error (Cohere), network_error (Z.ai);
//   - cancelled: a cancelled Responses object;
//   - suspended: pause_turn (Anthropic).
//
// These are the classifications [DetectStopMetadata] reports. A fragment with none of them is
// judged by its first token: an ordinary finish (stop, end_turn, stop_sequence, tool_use,
// tool_calls, function_call, tool_call, complete, completed) is [Completed], anything else
// (Gemini OTHER, FINISH_REASON_UNSPECIFIED) is [Unknown]. Detail is the lower-cased token in
// every case. An unknown token is not called completed, because that would hide a fact, and
// DetectStopMetadata does not report it, because prodding on a token nobody understands is
// worse than not.
//
// Provider is the family a refusal token names; else the provider argument, trimmed and
// lower-cased; else the one fragment's shape names unambiguously (a LangChain
// response_metadata.model_provider; candidates or promptFeedback: google; a Responses object:
// openai; an Anthropic message or event type: anthropic; a Cohere v2 body or event: cohere; a
// Converse body or event: bedrock; done_reason: ollama). The OpenAI chat shape is shared by a
// dozen APIs and names none.
func ClassifyStop(provider string, fragment any) (c Classification, ok bool) {
	c, _, ok = classifyStop(provider, fragment)
	return c, ok
}

// ClassifyStopToken classifies a bare stop or finish token, for a caller that kept the token
// and not the response (a Turn's final message). It means what the same token means to
// [ClassifyStop]; ok is false for the empty token. A Gemini prompt block reason is not a finish
// token and is not recognised here.
func ClassifyStopToken(provider, token string) (c Classification, ok bool) {
	if token == "" {
		return Classification{}, false
	}
	tok := stopLower(token)
	cls, known := stopClasses[tok]
	if !known {
		cls = stopClass{category: Unknown}
	}
	return Classification{Category: cls.category, Provider: stopProvider(provider, cls, nil), Detail: tok}, true
}

// classifyStop is ClassifyStop, also reporting whether the classification is interesting.
func classifyStop(provider string, fragment any) (c Classification, interesting, ok bool) {
	var s stopScan
	s.walk(fragment)
	switch {
	case s.hasBest:
		return Classification{Category: s.best.category, Provider: stopProvider(provider, s.best, fragment), Detail: s.bestToken}, true, true
	case s.found:
		cls, known := stopClasses[s.first]
		if !known {
			cls = stopClass{category: Unknown}
		}
		return Classification{Category: cls.category, Provider: stopProvider(provider, cls, fragment), Detail: s.first}, false, true
	}
	return Classification{}, false, false
}

// stopProvider names the provider of a classification: a refusal's family, else the given
// provider, else the one the fragment's shape names.
func stopProvider(given string, cls stopClass, fragment any) string {
	if cls.category == ContentRefusal && cls.family != "" {
		return cls.family
	}
	if p := strings.ToLower(strings.TrimSpace(given)); p != "" {
		return p
	}
	return stopInferProvider(fragment)
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
	if p := stopShapeProvider(top); p != "" {
		return p
	}
	for _, k := range [...]string{"message", "response"} {
		if h, ok := top[k].(map[string]any); ok {
			if p := stopShapeProvider(h); p != "" {
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
	}
	return ""
}

// RefusalExplanation returns the text a message carried alongside its stop metadata, trimmed,
// for a notice that says what the model said when it refused; "" when it carried none.
//
// It reads, in order: the message content (a string, or the text parts of a content list,
// leaving out reasoning and thought parts), at the top level, then in the raw shapes
// (choices[0].message, candidates[0].content.parts, a Converse output.message, a Cohere or
// Ollama message); then additional_kwargs.reasoning_content; then a refusal field
// (additional_kwargs, the top level, choices[0].message).
func RefusalExplanation(fragment any) string {
	top, ok := fragment.(map[string]any)
	if !ok {
		return ""
	}
	choice := stopFirstMap(top["choices"])
	choiceMessage, _ := choice["message"].(map[string]any)
	candidateContent, _ := stopFirstMap(top["candidates"])["content"].(map[string]any)
	output, _ := top["output"].(map[string]any)
	outputMessage, _ := output["message"].(map[string]any)
	message, _ := top["message"].(map[string]any)
	for _, v := range [...]any{top["content"], choiceMessage["content"], candidateContent["parts"], outputMessage["content"], message["content"]} {
		if t := stopContentText(v); t != "" {
			return t
		}
	}
	ak, _ := top["additional_kwargs"].(map[string]any)
	for _, v := range [...]any{ak["reasoning_content"], ak["refusal"], top["refusal"], choiceMessage["refusal"]} {
		if t, ok := v.(string); ok {
			if t = strings.TrimSpace(t); t != "" {
				return t
			}
		}
	}
	return ""
}

// stopFirstMap returns the first element of v when v is a list whose first element is a map.
func stopFirstMap(v any) map[string]any {
	items, _ := v.([]any)
	if len(items) == 0 {
		return nil
	}
	m, _ := items[0].(map[string]any)
	return m
}

// stopContentText returns the answer text of a content value: a string, or the text parts of a
// list joined, leaving out reasoning and thought parts.
func stopContentText(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case []any:
		var b strings.Builder
		for _, p := range v {
			part, ok := p.(map[string]any)
			if !ok {
				continue
			}
			switch part["type"] {
			case "thinking", "redacted_thinking", "reasoning":
				continue
			}
			if thought, _ := part["thought"].(bool); thought {
				continue
			}
			if t, ok := part["text"].(string); ok {
				b.WriteString(t)
			}
		}
		return strings.TrimSpace(b.String())
	}
	return ""
}
