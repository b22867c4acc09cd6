package termination

import "errors"

// ErrContextOverflow is the typed context overflow: the prompt and history did not fit the
// model's input window. A caller that knows this for certain (it counted the tokens, or its SDK
// typed the error) wraps it, and [Classify] and [IsContextOverflow] recognise it without reading
// any text:
//
//	return fmt.Errorf("%w: 210000 tokens > 200000", termination.ErrContextOverflow)
//
// It is the Go counterpart of LangChain's ContextOverflowError; an [APIError] whose Name is
// "ContextOverflowError" counts as typed as well. Being typed is the whole signal, so the
// category is context_overflow however the message is worded.
var ErrContextOverflow = errors.New("context window exceeded")

// IsContextOverflow reports whether err is a context overflow: a reason committed on err says
// so, or, when none is committed, err wraps [ErrContextOverflow], an [APIError] in its chain is
// named "ContextOverflowError", or one of the arms [ContextOverflowArms] names matches its
// text. It is exactly the question of whether [Classify] answers [ContextOverflow].
//
// It is never keyed on a provider's overflow code alone (LangChain's lc_error_code is set
// asymmetrically across providers); the codes that mean overflow are arms like any other text.
func IsContextOverflow(err error) (overflow bool) {
	if err == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			overflow = false
		}
	}()
	var ev evidence
	if ev.gather(err) {
		return ev.committed.Category == ContextOverflow
	}
	var buf [512]byte
	return ev.overflow(ev.readText(buf[:0]))
}

// ContextOverflowArms returns the names of the context-overflow arms err's text matches, in
// list order; nil when none does. It reads the same arm list through the same text reader the
// classifier uses, so a check that one particular arm still fires cannot pass on a copy of the
// list: a Groq overflow is carried by "reduce the length of the messages" while a Groq
// tokens-per-minute rejection is carried by "request too large", and only the arm names tell
// the two apart.
//
// It is read-only and diagnostic: no classification consults it. It reports the text's arms
// whether or not a reason is committed on err (a committed reason outranks them in [Classify]),
// and typed overflows ([ErrContextOverflow], the ContextOverflowError name) are not arms.
func ContextOverflowArms(err error) (arms []string) {
	if err == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			arms = nil
		}
	}()
	var ev evidence
	ev.chain.walk(err)
	ev.gatherTyped()
	var buf [512]byte
	text := ev.readText(buf[:0])
	eachOverflowArm(text, &ev.set, func(a *overflowArm) bool {
		arms = append(arms, a.name)
		return true
	})
	return arms
}

// overflowArmSpecs is the one list of context-overflow arms, in order. An arm matches when every
// string of all is in the error text (all defaults to the arm's name), none of unless is, and
// its rule holds. The first twelve are the origin's, in its order; the rest cover the providers
// LiteLLM's anchor and provider reports name.
var overflowArmSpecs = []overflowArmSpec{
	// OpenAI's error code (also Groq when coded, and OpenRouter's upstream code).
	{name: "context_length_exceeded"},
	{name: "context length exceeded"},
	// "This model's maximum context length is N tokens…": OpenAI and the OpenAI-compatible
	// family (Azure, DeepSeek, vLLM, Mistral "… too large for model with N maximum context
	// length", OpenRouter's own, Aleph Alpha).
	{name: "maximum context length"},
	{name: "exceeds the context window"},
	{name: "exceed the context window"},
	// OpenAI and Azure deployment limits.
	{name: "input tokens exceed the configured limit"},
	// Anthropic "prompt is too long: 210000 tokens > 200000 maximum", also via Bedrock and
	// OpenRouter.
	{name: "prompt is too long"},
	// Generic, Cohere, AI21. Not Cerebras's daily token quota ("too many tokens processed",
	// code token_quota_exceeded), which is a rate limit.
	{name: "too many tokens", unless: []string{"too many tokens processed", "token_quota"}},
	// Load-bearing for Groq's uncoded overflow: "Please reduce the length of the messages or
	// completion." (type invalid_request_error, param messages, no code).
	{name: "reduce the length of the messages"},
	// "Request too large for gpt-4 in organization …", and Groq's 413 "Request too large for
	// model … on tokens per minute (TPM): Limit 6000, Requested 20000". When the text states a
	// limit and a request that fits it, this is an ordinary rate limit and the arm stands down
	// (see budgetOf).
	{name: "request too large", rule: ruleUnlessFits},
	// Google Gemini, AI Studio and Vertex: "The input token count exceeds the maximum number of
	// tokens allowed (1048576)." The tail of the sentence, so an inline count and both
	// platforms' punctuation match.
	{name: "exceeds the maximum number of tokens allowed"},
	// Bedrock, also via OpenRouter: "Input is too long for requested model." Never the bare
	// "input is too long": a tool's own "Input is too long, maximum 500 characters." must stay
	// tool_error.
	{name: "input is too long for"},

	// Anthropic "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000".
	{name: "exceed context limit"},
	{name: "model's maximum context limit"},
	{name: "longer than the model's context length"},
	// vLLM "The decoder prompt (length 17772) is longer than the maximum model length of 16384."
	{name: "longer than the maximum model length"},
	// Ollama {"error":"the input length exceeds the context length"}.
	{name: "exceeds the context length"},
	// llama.cpp server (and Lemonade) "the request exceeds the available context size".
	{name: "exceeds the available context size"},
	// llama.cpp via LM Studio "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)".
	{name: "cannot truncate prompt with n_keep"},
	// LM Studio "The number of tokens to keep from the initial prompt is greater than the
	// context length." and "Trying to keep the first N tokens when context the overflows."
	{name: "greater than the context length"},
	{name: "when context the overflows"},
	// xAI "This model's maximum prompt length is 131072 but the request contains 136973 tokens."
	{name: "maximum prompt length is"},
	// Hugging Face TGI, SageMaker, Together AI.
	{name: "`inputs` tokens + `max_new_tokens` must be"},
	// Bedrock.
	{name: "too many input tokens"},
	{name: "expected maxlength:"},
	{name: "prompt: length"},
	// Bedrock Mantle "prompt tokens (N) exceed model maximum (M)".
	{name: "exceed model maximum"},
	// Vertex "400 Request payload size exceeds the limit".
	{name: "request payload size exceeds"},
	// Hugging Face; NLP Cloud.
	{name: "length limit exceeded"},
	{name: "input text length should not exceed"},
	// Cerebras "Current length is 9000 while limit is 8192".
	{name: "current length is … while limit is", all: []string{"current length is", "while limit is"}},
	{name: "maximum input length is … tokens", all: []string{"maximum input length is", "tokens"}},
	// OpenAI "Invalid 'messages[1].content': string too long. Expected a string with maximum
	// length 10485760": one message larger than the API accepts; sending less fixes it. The
	// same sentence about a tool description or the user field is a malformed request, not an
	// overflow, so the arm needs the messages parameter named.
	{
		name: "string too long (messages)",
		all:  []string{"string too long. expected a string with maximum length", "'messages["},
	},
	// A per-time token limit smaller than the one request: "Limit 6000, Requested 20000" on
	// tokens per minute or per day, however the sentence is worded. No back-off can make that
	// request fit; sending fewer tokens (context or max_tokens) is the only fix.
	{name: "requested exceeds limit", all: []string{"tokens per "}, rule: ruleExceeds},
}

// overflowArmSpec is one arm as written in overflowArmSpecs.
type overflowArmSpec struct {
	name   string
	all    []string
	unless []string
	rule   overflowRule
}

// overflowRule is a condition an arm adds on the limit and request counts the text states.
type overflowRule uint8

const (
	// ruleNone adds nothing.
	ruleNone overflowRule = iota
	// ruleUnlessFits: the arm stands down when the text states a limit the request fits in.
	ruleUnlessFits
	// ruleExceeds: the arm holds only when the text states a limit the request exceeds.
	ruleExceeds
)

// overflowArm is an arm compiled into needles: its all and unless lists as sets, so an arm is
// decided with a few word operations.
type overflowArm struct {
	name        string
	all, unless needleSet
	rule        overflowRule
}

// compileOverflowArms compiles specs, and returns with them the union of every arm's all
// needles: a text holding none of those can match no arm.
func compileOverflowArms(m *needleMatcher, specs []overflowArmSpec) ([]overflowArm, needleSet) {
	arms := make([]overflowArm, len(specs))
	var union needleSet
	for i, s := range specs {
		all := s.all
		if all == nil {
			all = []string{s.name}
		}
		if len(all) == 0 {
			// eachOverflowArm rejects a text holding none of the union; an arm requiring
			// nothing would need no needle.
			panic("termination: overflow arm requires no needle: " + s.name)
		}
		arms[i] = overflowArm{name: s.name, rule: s.rule}
		for _, n := range m.interns(all...) {
			arms[i].all.add(n)
			union.add(n)
		}
		for _, n := range m.interns(s.unless...) {
			arms[i].unless.add(n)
		}
	}
	return arms, union
}

// eachOverflowArm calls yield with every arm that matches text, whose needles are set, in list
// order, until yield returns false. An arm matches when set holds every needle of its all and
// none of its unless, and its rule holds for the text's token budget. The budget is read at
// most once, and only when an arm with a rule gets that far: it is a pure function of the text,
// so reading it late changes no answer.
func eachOverflowArm(text []byte, set *textScan, yield func(*overflowArm) bool) {
	if !set.intersects(&classifyLex.overflowNeedles) {
		return
	}
	budget, read := budgetUnstated, false
	for i := range classifyLex.overflow {
		a := &classifyLex.overflow[i]
		if !set.hasAll(&a.all) || set.intersects(&a.unless) {
			continue
		}
		if a.rule != ruleNone {
			if !read {
				budget, read = budgetOf(text, set), true
			}
			if !a.rule.holds(budget) {
				continue
			}
		}
		if !yield(a) {
			return
		}
	}
}

// holds reports whether the rule holds for a text with token budget b.
func (r overflowRule) holds(b tokenBudget) bool {
	switch r {
	case ruleNone:
		return true
	case ruleUnlessFits:
		return b != budgetFits
	case ruleExceeds:
		return b == budgetExceeded
	}
	return false
}

// tokenBudget is what a rate-limit sentence says about one request against a per-time token
// limit.
type tokenBudget uint8

const (
	// budgetUnstated: the text states no limit and request count.
	budgetUnstated tokenBudget = iota
	// budgetFits: "Limit 6000, Used 5000, Requested 2000": the request fits the limit, so
	// waiting for the window to roll over fixes it.
	budgetFits
	// budgetExceeded: "Limit 6000, Requested 20000": the request alone is larger than the limit.
	budgetExceeded
)

// budgetOf reads the "Limit N, … Requested M" of an OpenAI or Groq tokens-per-minute (or
// per-day) rejection out of the lower-cased text, of which set is the scan. It is read only when
// the text speaks of tokens per some time unit, so a "recursion limit 25" or a limit on requests
// is never mistaken for one. N and M are the counts that follow the first "limit" and the first
// "requested" to have one; the scan read them (countAt) as it found the words, so text itself
// is not read again.
func budgetOf(text []byte, set *textScan) tokenBudget {
	_ = text // the scan has read from it what the budget needs
	if !set.has(classifyLex.tokensPer) || !set.has(classifyLex.limitWord) || !set.has(classifyLex.requestedWord) {
		return budgetUnstated
	}
	limit, requested := set.counts[classifyLex.limitCount], set.counts[classifyLex.requestedCount]
	switch {
	case !limit.ok || !requested.ok:
		return budgetUnstated
	case requested.n > limit.n:
		return budgetExceeded
	}
	return budgetFits
}

// countAt reads the count at the start of rest, after spaces or a colon: its digits and
// thousands separators, at most eighteen digits. False when no digit comes first.
func countAt(rest []byte) (int64, bool) {
	j := 0
	for j < len(rest) && (rest[j] == ' ' || rest[j] == ':') {
		j++
	}
	var n int64
	digits := 0
	for ; j < len(rest) && digits < 18; j++ {
		c := rest[j]
		if c == ',' && digits > 0 && j+1 < len(rest) && '0' <= rest[j+1] && rest[j+1] <= '9' {
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	return n, digits > 0
}
