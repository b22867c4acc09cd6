package termination

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// features is a provider's error as words: its class name, type, codes and quota ids split
// into words (RateLimitError, rate_limit_exceeded and RESOURCE_EXHAUSTED read as "rate limit
// error", "rate limit exceeded", "resource exhausted"), then its message and every message the
// body holds, lower-cased. norm is the words joined by single spaces, with a space at each end,
// so a word or phrase is found with its boundaries (" over " is not in " overloaded ").
//
// Each feature below is a small vocabulary of one kind of evidence, written as words a provider
// of any kind uses, never as one provider's sentence; [providerEvidence] combines them.
type features struct {
	norm string
	// over is norm without the phrases in which "context" is not a quantity ("context deadline
	// exceeded", "context canceled"), for the overflow rule.
	over string
}

// maxFeatureText bounds the text the features read, in bytes.
const maxFeatureText = 16 << 10

func readFeatures(a *APIError, b *ErrorBody) features {
	var w wordWriter
	w.add(a.Name)
	w.add(a.Type)
	w.add(a.Code)
	for _, s := range b.codes {
		w.add(s)
	}
	for _, s := range b.quotas {
		w.add(s)
	}
	w.add(a.Message)
	for _, s := range b.texts {
		w.add(s)
	}
	if !b.object && len(b.texts) == 0 {
		w.add(a.Body)
	}
	f := features{norm: " " + w.b.String() + " "}
	f.over = f.norm
	for _, p := range [...]string{" context deadline exceeded ", " deadline exceeded ", " context canceled ", " context cancelled "} {
		f.over = strings.ReplaceAll(f.over, p, " ")
	}
	return f
}

// wordWriter writes text as lower-case words separated by single spaces. A word is a run of
// letters and digits; a camel-case boundary (rateLimit, APIConnection) starts a new word; a
// thousands separator inside a number is dropped; the comparison signs > < >= <= ≥ ≤ are words
// of their own; everything else separates.
type wordWriter struct {
	b strings.Builder
}

func (w *wordWriter) add(s string) {
	if s == "" || w.b.Len() >= maxFeatureText {
		return
	}
	if len(s) > maxFeatureText {
		s = s[:maxFeatureText]
	}
	inWord := false
	var prev rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		next, _ := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			boundary := inWord && unicode.IsUpper(r) &&
				(unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)))
			if !inWord || boundary {
				w.space()
			}
			w.b.WriteRune(unicode.ToLower(r))
			inWord = true
		case r == ',' && unicode.IsDigit(prev) && unicode.IsDigit(next):
			continue // 6,000
		case r == '>' || r == '<' || r == '≥' || r == '≤':
			w.space()
			w.b.WriteRune(r)
			if next == '=' {
				w.b.WriteByte('=')
			}
			inWord = false
		default:
			inWord = false
		}
		prev = r
	}
}

func (w *wordWriter) space() {
	if w.b.Len() > 0 {
		w.b.WriteByte(' ')
	}
}

// has reports whether any of the words or phrases is in the text, whole.
func (f *features) has(phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(f.norm, " "+p+" ") {
			return true
		}
	}
	return false
}

// stem reports whether a word of the text begins with any of the stems.
func (f *features) stem(stems ...string) bool {
	for _, s := range stems {
		if strings.Contains(f.norm, " "+s) {
			return true
		}
	}
	return false
}

// contains reports whether any of the strings is anywhere in the text: for scripts written
// without spaces between words.
func (f *features) contains(subs ...string) bool {
	for _, s := range subs {
		if strings.Contains(f.norm, s) {
			return true
		}
	}
	return false
}

var (
	// reInputCap is a statement of the input's cap: "maximum context length", "max model len",
	// "maximum prompt length", "max input tokens".
	reInputCap = regexp.MustCompile(` (max|maximum) (\S+ ){0,2}(context|prompt|input|model|sequence) (length|len|size|window|tokens?) `)
	// reReduce asks for less input: "reduce the length of the messages", "shorten your prompt".
	reReduce = regexp.MustCompile(` (reduce|shorten|trim) (\S+ ){0,4}(length|size|prompt|context|input|messages|tokens) `)
	// reLimitCount and reRequestedCount read "Limit 6000, Requested 20000".
	reLimitCount     = regexp.MustCompile(` (?:limit|max|maximum) (\d+) `)
	reRequestedCount = regexp.MustCompile(` requested (\d+) `)
)

// overflow: the input is too large for the model. A quantity (tokens, characters, context,
// window, prompt, input, length, size) together with either an exceeding against a limit
// ("exceeds … maximum", "> 200000 maximum", "longer than … context"), or "too long", "too
// large", "too many", "overflow", a request to reduce the input, or a statement of the input
// cap. Two guards (a 429 counts as a per-time limit): an error about the output cap alone (max_tokens, completion tokens, with no
// word of the input) is not an overflow; and a per-time rate limit is an overflow only when the
// one request is larger than the limit ("Limit 6000, Requested 20000", "request too large").
func (f *features) overflow(status int) bool {
	g := features{norm: f.over}
	if !g.stem("token", "character", "chars", "context", "prompt", "input", "length", "ctx", "window", "payload", "size", "byte", "sequence") {
		return false
	}
	input := g.stem("context", "prompt", "input", "ctx", "window", "payload", "message", "sequence", "conversation", "history")
	output := g.stem("output", "completion", "generation") ||
		g.has("max tokens", "max new tokens", "max completion tokens", "max output tokens", "num predict")
	if output && !input {
		return false
	}
	if status == 429 || g.has("per minute", "per min", "per day", "per hour", "per second", "tpm", "rpm", "tpd", "rpd", "itpm", "otpm", "rate limit", "rate limited") {
		return g.has("too large") || requestExceedsLimit(g.norm)
	}
	if g.has("too long", "too large", "too big", "too many") || g.stem("overflow") ||
		reReduce.MatchString(g.norm) || reInputCap.MatchString(g.norm) {
		return true
	}
	exceed := g.stem("exceed", "surpass") ||
		g.has("over", "greater", "longer", "larger", "more than", "beyond", "above", ">", ">=", "<=", "≥", "≤")
	limit := g.stem("limit", "maxim", "context", "window", "ctx", "capacit", "allow", "availab") || g.has("max")
	return exceed && limit
}

// requestExceedsLimit reports whether the text states a limit and a request larger than it.
func requestExceedsLimit(norm string) bool {
	l, r := reLimitCount.FindStringSubmatch(norm), reRequestedCount.FindStringSubmatch(norm)
	if l == nil || r == nil {
		return false
	}
	limit, err1 := strconv.ParseInt(l[1], 10, 64)
	req, err2 := strconv.ParseInt(r[1], 10, 64)
	return err1 == nil && err2 == nil && req > limit
}

// filter: a provider's safety, moderation or content-policy block, in English or in the other
// languages providers answer in. Strong words decide alone; "safety", "policy", "sensitive",
// "blocked", "filtered", "refused" and "risk" need a word of what was judged (content, prompt,
// output) or of the judging (violation, detected, flagged, rejected, system).
func (f *features) filter() bool {
	if f.stem("moderat", "flagged", "harmful", "inappropriat", "prohibited", "guardrail", "unsafe",
		"censor", "jailbreak", "objectionable", "offensive", "toxic", "nsfw") ||
		f.has("responsible ai", "content filter", "content filtering", "content management", "safety system",
			"safety filter", "safety filters", "data inspection", "high risk", "usage policy", "usage policies",
			"content policy", "content policies", "acceptable use", "safety reasons", "safety concerns") {
		return true
	}
	if f.stem("safety", "polic", "sensitive", "blocked", "filtered", "refus", "risk", "security warning") &&
		f.stem("content", "violat", "block", "reject", "system", "usage", "trigger", "detect", "flag", "harm", "prompt", "response", "output", "input") {
		return true
	}
	return f.contains("安全", "敏感", "违规", "違規", "审核", "審核", "不当", "不當", "不適切", "违反", "有害", "风控", "風控",
		"정책", "안전", "유해", "безопас", "модерац", "запрещ", "недопуст", "polític", "moderaci", "sécurité",
		"modération", "richtlinie", "sicherheit", "sicurezza", "moderazion", "inapropiad", "inadequad")
}

// billing: quota or credit exhausted, which only a person fixes (pay, change plan). Google
// sends "check your plan and billing details" on every quota 429, per-minute ones included,
// so for Google only a per-day quota or a zero limit counts.
func (f *features) billing(provider string, quotas []string) bool {
	perDay := f.has("per day", "daily", "perday", "monthly", "per month") && (f.stem("quota", "limit", "throttl", "allocation") || f.has("too many"))
	upgrade := f.stem("upgrad") && f.stem("plan", "tier", "paid")
	p := strings.ToLower(provider)
	google := strings.HasPrefix(p, "google") || strings.HasPrefix(p, "gemini") || strings.HasPrefix(p, "vertex") ||
		f.contains("googleapis") || len(quotas) > 0 || f.has("resource exhausted")
	if google {
		return perDay || f.has("limit 0") || (f.stem("free") && f.stem("tier") && f.has("doesn t", "not", "no"))
	}
	return perDay || upgrade || f.stem("billing", "arrear", "overdue", "credit") ||
		f.has("insufficient quota", "insufficient balance", "insufficient funds", "payment required",
			"exceeded your current quota", "check your plan", "can only afford")
}

// recursion: an agent graph's recursion limit.
func (f *features) recursion() bool { return f.has("recursion limit") }

// abort: the caller aborted, cancelled or interrupted the request. A connection that was
// aborted ("Connection aborted", ECONNABORTED) is the transport's, not the caller's.
func (f *features) abort() bool {
	return (f.stem("abort", "cancel", "interrupt") || f.has("client closed request")) &&
		!f.stem("connect", "econn", "socket", "deadline")
}

// streamCut: a response that began and broke off.
func (f *features) streamCut() bool {
	if f.has("exit status") || f.stem("process") {
		return false // a process that terminated crashed; nothing was cut
	}
	return f.stem("premature") || (f.has("streaming", "stream idle", "mid stream") && f.stem("connect", "idle", "partial")) ||
		f.has("partial response", "incomplete read", "incomplete chunked", "chunked encoding", "stream ended", "ended unexpectedly",
			"terminated", "stream closed", "stream disconnected", "stream interrupted", "response ended", "body ended",
			"unexpected end of stream")
}

// timeout: a deadline passed.
func (f *features) timeout() bool {
	return f.stem("timeout", "etimedout", "timedout") ||
		f.has("timed out", "time out", "deadline exceeded", "deadline", "took too long")
}

// untrusted: a TLS certificate the client would not trust.
func (f *features) untrusted() bool {
	return f.stem("certificate", "x509", "cert") &&
		(f.stem("verif", "untrust", "selfsigned", "expired", "issuer") ||
			f.has("self signed", "unknown authority", "not trusted", "hostname mismatch", "invalid"))
}

// transport: the request never completed at the transport level.
func (f *features) transport() bool {
	return f.stem("connect", "disconnect", "socket", "econn", "enotfound", "eai", "epipe", "ehostunreach",
		"enetunreach", "enetdown", "getaddrinfo", "unreachable", "handshake", "dns", "network", "goaway") ||
		f.has("peer", "reset", "refused", "eof", "tls", "ssl", "no such host", "name resolution", "resolve host",
			"max retries", "fetch failed", "failed to fetch", "other side closed", "hang up", "broken pipe", "name or service not known",
			"nodename nor servname")
}

// rate: a rate limit or throttle.
func (f *features) rate() bool {
	return f.stem("ratelimit", "throttl", "quota", "rate limit") ||
		f.contains("限速", "限流", "频率限制", "速率限制", "过于频繁", "请求过多") ||
		f.has("too many requests", "resource exhausted", "requests per",
			"tokens per", "tpm", "rpm", "slow down", "concurrency limit", "concurrent requests")
}

// credentials: a missing, wrong or unauthorised credential.
func (f *features) credentials() bool {
	return f.stem("unauthori", "unauthenticat", "authenticat", "forbidden", "credential", "apikey", "oauth", "permission") ||
		f.has("api key", "api token", "access denied", "access is denied", "not authorized", "access token", "invalid token",
			"token expired", "expired token") ||
		(f.has("account") && f.stem("inactive", "suspend", "disabled", "deactivat", "banned", "lock"))
}

// noModel: the model asked for does not exist.
func (f *features) noModel() bool {
	return f.stem("model") &&
		f.has("not found", "does not exist", "doesn t exist", "no such", "unknown model", "invalid model",
			"not a valid model", "try pulling", "pull the model")
}

// empty: the provider answered with nothing: "no output", "none were returned", "response is
// empty", "without sending any chunks".
func (f *features) empty() bool {
	what := []string{"output", "response", "content", "completion", "reply", "text", "result", "message",
		"choices", "candidates", "object", "chunks", "generation"}
	for _, w := range what {
		if f.has("no "+w, "empty "+w, w+" is empty", w+" was empty", "without sending any "+w) {
			return true
		}
	}
	return f.has("none were returned", "returned nothing", "or empty") || (f.stem("empty") && f.has("none"))
}

// truncated: the answer was cut off against the output cap ("the length limit was reached",
// LengthFinishReasonError, "response too long").
func (f *features) truncated() bool {
	return f.has("length finish reason", "finish reason length", "response too long", "output too long") ||
		(f.has("length limit", "token limit", "output limit", "max tokens") && f.stem("reach"))
}

// providerFault: the provider failed on its side.
func (f *features) providerFault() bool {
	return f.stem("overload", "internal", "unavailable", "upstream", "crash", "panic", "segfault", "segmentation") ||
		f.has("server error", "bad gateway", "service unavailable", "try again later", "out of memory", "oom",
			"temporarily", "backend error", "server had an error", "busy", "capacity")
}

// invalid: the request itself is malformed.
func (f *features) invalid() bool {
	return f.stem("invalid", "malformed", "unsupported", "validat", "unprocessabl", "unrecogni", "incorrect", "parameter", "deserializ") ||
		f.has("bad request", "not supported", "must be", "is required", "required", "missing", "unknown parameter")
}
