package termination

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// features is a provider's error as words: its class name, type, codes and quota ids split
// into words (RateLimitError, rate_limit_exceeded and RESOURCE_EXHAUSTED read as "rate limit
// error", "rate limit exceeded", "resource exhausted"), then its message and every message the
// body holds, lower-cased. norm is the words joined by single spaces, with a space at each end.
//
// The text is read once, word by word, against one vocabulary ([vocabulary]): each entry is a
// word, a phrase of words, or a stem (the start of a word, written "stem*"), and names the kind
// of evidence it is (a quantity, an exceeding, a filter word, a transport word, …). has then
// says which kinds the text holds; [providerEvidence] combines the kinds by its one rule.
type features struct {
	norm string
	// has holds the kinds of evidence the text holds. over holds the kinds the text reports:
	// those outside the phrases that only name a thing ("context deadline exceeded", "input
	// validation error", "rate limit usage") and outside a hedge's guess ("to see if the prompt
	// was blocked"); the overflow, filter and rate rules read over.
	has, over kind
	// stated holds the kinds outside a hedge's guess, masking phrases included: a transport's
	// "connection refused" is its report, "check your connection settings" is advice.
	stated kind
	// nonASCII says the text holds a byte that is not ASCII, so the vocabulary of scripts
	// written without spaces between words is worth looking for.
	nonASCII bool
	words    []string // norm's words, split once when a rule needs them
}

// fields returns the text's words.
func (f *features) fields() []string {
	if f.words == nil {
		f.words = strings.Fields(f.norm)
	}
	return f.words
}

// maxFeatureText bounds the text the features read, in bytes.
const maxFeatureText = 16 << 10

func readFeatures(a *APIError, b *ErrorBody) features {
	var w wordWriter
	w.b.Grow(len(a.Name) + len(a.Type) + len(a.Code) + len(a.Message) + 64)
	w.b.WriteByte(' ')
	w.add(a.Name)
	w.add(a.Type)
	w.add(a.Code)
	for _, s := range b.codes {
		if s != a.Type && s != a.Code {
			w.add(s)
		}
	}
	for _, s := range b.quotas {
		w.add(s)
	}
	msg := withoutModelNames(withoutFrames(a.Message))
	if b.inMessage {
		msg = withoutEnvelopeKeys(msg) // "message":, 'type': … are the envelope's, not words
	}
	w.add(msg)
	for _, s := range b.texts {
		if s != a.Message {
			w.add(withoutModelNames(s))
		}
	}
	w.b.WriteByte(' ')
	f := features{norm: w.b.String(), nonASCII: w.nonASCII}
	f.scan()
	return f
}

// hedgeWords bounds how many words after a hedge ("if", "whether", "might", "may need") are
// read as its guess rather than as a report: to the end of its sentence, at most this many.
const hedgeWords = 16

// withoutFrames returns s without the lines of a stack trace (JavaScript's and Java's "    at
// f (file:1:2)", Python's `  File "x.py", line 3, in f`, Mono's and Unity's "N.T.M (args) (at
// <mvid>:0)" and "(at Assets/X.cs:42)"): they name code, not what failed.
func withoutFrames(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != l && (strings.HasPrefix(t, "at ") || strings.HasPrefix(t, `File "`)) ||
			strings.Contains(t, ") (at <") || strings.Contains(t, ") (at ") && strings.Contains(t, ".cs:") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// withoutModelNames returns s with each quoted name of a model ("The 'gpt-4o-mini' model",
// `model "llama-guard-3"`) put as one neutral word: a model's name is a name, and the parts of
// it ("guard", "max", "abort", "free") are no words of the error.
func withoutModelNames(s string) string {
	if !strings.Contains(s, "model") && !strings.Contains(s, "Model") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		end := strings.IndexByte(s[i+1:], q)
		if end <= 0 || end > 100 || strings.ContainsAny(s[i+1:i+1+end], " \t\n") {
			continue
		}
		close := i + 1 + end // the closing quote
		before := strings.ToLower(strings.TrimRight(s[max(0, i-8):i], " :="))
		after := strings.ToLower(strings.TrimLeft(s[close+1:min(len(s), close+16)], " "))
		if strings.HasSuffix(before, "model") || modelNamedBefore(after) {
			b.WriteString(s[last:i])
			b.WriteString(" name ")
			last = close + 1
		}
		i = close
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// modelNamedBefore reports whether after, the text that follows a quoted name, makes the name a
// model's: "model is not supported", "model does not exist", "model.", not "model setting".
func modelNamedBefore(after string) bool {
	rest, ok := strings.CutPrefix(after, "model")
	if !ok {
		return false
	}
	if rest == "" || strings.IndexByte(".,;:)!", rest[0]) >= 0 {
		return true
	}
	for _, v := range [...]string{" is", " does", " not", " was", " has", " cannot", " can't", " isn", " doesn", " wasn"} {
		if strings.HasPrefix(rest, v) {
			return true
		}
	}
	return false
}

// envelopeKeys are the key names of the error envelopes providers wrap their words in. Written
// into a message as JSON or a language's rendering of an object, they are structure, not prose
// ("message" is no word of the input); other keys are left, since they can carry meaning
// (Google's quota_limit_value).
var envelopeKeys = map[string]bool{
	"message": true, "type": true, "code": true, "error": true, "param": true, "status": true,
	"details": true, "detail": true, "metadata": true, "object": true, "errors": true,
}

// withoutEnvelopeKeys returns s without the envelope keys written in it as quoted keys ("message":,
// 'type':, "error" =>).
func withoutEnvelopeKeys(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '"' && q != '\'' {
			continue
		}
		end := strings.IndexByte(s[i+1:], q)
		if end < 0 || end > 16 {
			continue
		}
		key := s[i+1 : i+1+end]
		rest := strings.TrimLeft(s[i+2+end:], " ")
		if envelopeKeys[key] && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=>")) {
			b.WriteString(s[last:i])
			b.WriteByte(' ')
			last = i + 2 + end
			i = last - 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// scan looks every word of the text up in the vocabulary, once.
func (f *features) scan() {
	norm := f.norm
	masked := 0 // norm before this offset is inside a masking phrase
	hedged := 0 // the next hedged words are a hedge's guess
	for pos := 1; pos < len(norm); {
		end := pos + strings.IndexByte(norm[pos:], ' ')
		if end < pos {
			break
		}
		word, rest := norm[pos:end], norm[pos:]
		var k kind
		for _, e := range vocab[vocabKey(word)] {
			if strings.HasPrefix(rest, e.text) {
				k |= e.kind
				if e.kind&kMask != 0 {
					masked = max(masked, pos+len(e.text))
				}
			}
		}
		f.has |= k
		if hedged == 0 {
			f.stated |= k
			if pos >= masked {
				f.over |= k
			}
		}
		switch {
		case word == ".":
			hedged = 0 // a sentence ends, and its hedge with it
		case hedged > 0:
			hedged--
		}
		if k&kHedge != 0 && !(word == "possible" && notGuess(norm[:pos], norm[end:])) {
			hedged = hedgeWords
		}
		pos = end + 1
	}
}

// notGuess reports whether "possible", between before and after, states a possibility rather
// than guessing a cause: "not possible to", "as soon as possible", "if possible", "possible
// values are". Only "possible" directly naming a cause ("(possible rate limit)") is a hedge.
func notGuess(before, after string) bool {
	prev := before[strings.LastIndexByte(strings.TrimSuffix(before, " "), ' ')+1:]
	switch strings.TrimSuffix(prev, " ") {
	case "not", "as", "if", "is", "be", "are", "was", "impossible", "where", "when", "whenever":
		return true
	}
	next, _, _ := strings.Cut(strings.TrimPrefix(after, " "), " ")
	switch next {
	case "to", "values", "value", "options", "choices", ".", "":
		return true
	}
	return false
}

// any reports whether the text holds a word of any of the kinds.
func (f *features) any(k kind) bool { return f.has&k != 0 }

// word reports whether the text holds any of the words (or phrases of words) whole.
func (f *features) word(ws ...string) bool {
	for _, w := range ws {
		if hasWord(f.norm, w) {
			return true
		}
	}
	return false
}

// hasWord reports whether norm (words between single spaces, with a space at each end) holds
// w whole: preceded and followed by a space. It looks w up in place, without building " w ".
func hasWord(norm, w string) bool {
	for i := 0; i < len(norm); {
		j := strings.Index(norm[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if j > 0 && norm[j-1] == ' ' && j+len(w) < len(norm) && norm[j+len(w)] == ' ' {
			return true
		}
		i = j + 1
	}
	return false
}

// stem reports whether a word of the text starts with the stem.
func (f *features) stem(s string) bool { return strings.Contains(f.norm, " "+s) }

// contains reports whether any of the strings is anywhere in the text: for scripts written
// without spaces between words, and compounds.
func (f *features) contains(subs ...string) bool {
	for _, s := range subs {
		if strings.Contains(f.norm, s) {
			return true
		}
	}
	return false
}

// wordWriter writes text as lower-case words separated by single spaces. A word is a run of
// letters and digits; a camel-case boundary (rateLimit, APIConnection) starts a new word; a
// thousands separator inside a number is dropped; the comparison signs > < >= <= ≥ ≤ are words
// of their own; the end of a sentence (. ! or ? before a space or the end) is the word "."; everything
// else separates.
type wordWriter struct {
	b        strings.Builder
	nonASCII bool
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

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
		var r rune
		if c := s[i]; c < utf8.RuneSelf {
			// The common case, ASCII, without a call per byte.
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if !inWord {
					w.space()
				}
				w.b.WriteByte(c)
				inWord, prev = true, rune(c)
				continue
			case (c == '.' || c == '!' || c == '?') && (i == len(s) || s[i] == ' ' || s[i] == '\n'):
				w.space()
				w.b.WriteByte('.')
				inWord, prev = false, rune(c)
				continue
			case c == ' ' || c == '_' || c == '-' || c == '.' || c == ':' || c == '"' || c == '/' || c == '\'':
				inWord, prev = false, rune(c)
				continue
			}
			r = rune(c)
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(s[i:])
			i += n
		}
		next, _ := utf8.DecodeRuneInString(s[i:]) // utf8.RuneError past the end
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			boundary := inWord && unicode.IsUpper(r) &&
				(unicode.IsLower(prev) || isDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)))
			if !inWord || boundary {
				w.space()
			}
			switch {
			case 'A' <= r && r <= 'Z':
				w.b.WriteByte(byte(r) + 'a' - 'A')
			case r < utf8.RuneSelf:
				w.b.WriteByte(byte(r))
			default:
				w.nonASCII = true
				w.b.WriteRune(unicode.ToLower(r))
			}
			inWord = true
		case r == ',' && isDigit(prev) && isDigit(next):
			continue // 6,000
		case r == '>' || r == '<' || r == '≥' || r == '≤':
			// A comparison is followed by the number it compares with ("8192 > 4096", "(> 200000
			// maximum)"); a bracket ("<Task cancelled …>", "contextlib.py:698>") compares nothing.
			if after := strings.TrimLeft(s[i:], "= "); after == "" || !isDigit(rune(after[0])) {
				inWord = false
				break
			}
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
	if s := w.b.String(); s != "" && s[len(s)-1] != ' ' {
		w.b.WriteByte(' ')
	}
}

// inputCap: a statement of the input's cap: "maximum context length", "max model len",
// "maximum prompt length", "max input tokens": max or maximum, at most two words, a quantity
// of the input, then a measure.
func (f *features) inputCap() bool {
	return f.word("max", "maximum") && f.followed([]string{"max", "maximum"}, 3,
		[]string{"context", "prompt", "input", "model", "sequence"}, []string{"length", "len", "size", "window", "token", "tokens"})
}

// reduce: a request for less input: "reduce the length of the messages", "shorten your
// prompt": reduce, shorten or trim, then within five words what to reduce.
func (f *features) reduce() bool {
	return f.word("reduce", "shorten", "trim") && f.followed([]string{"reduce", "shorten", "trim"}, 5,
		[]string{"length", "size", "prompt", "context", "input", "messages", "tokens"}, nil)
}

// followed reports whether a word of lead is followed, within n words, by a word of what (and,
// when then is given, that word by a word of then).
func (f *features) followed(lead []string, n int, what, then []string) bool {
	ws := f.fields()
	for i, w := range ws {
		if !slices.Contains(lead, w) {
			continue
		}
		for j := i + 1; j <= i+n && j < len(ws); j++ {
			if slices.Contains(what, ws[j]) && (then == nil || j+1 < len(ws) && slices.Contains(then, ws[j+1])) {
				return true
			}
		}
	}
	return false
}

// requestExceedsLimit reports whether the text states a limit and a request larger than it:
// "Limit 6000, Requested 20000", "requested 319487 tokens, max 300000".
func (f *features) requestExceedsLimit() bool {
	if !f.word("requested") {
		return false
	}
	var limit, req int64 = -1, -1
	ws := f.fields()
	for i := 0; i+1 < len(ws); i++ {
		if !isNumber(ws[i+1]) {
			continue
		}
		n, err := strconv.ParseInt(ws[i+1], 10, 64)
		if err != nil {
			continue
		}
		switch ws[i] {
		case "limit", "max", "maximum":
			if limit < 0 {
				limit = n
			}
		case "requested":
			if req < 0 {
				req = n
			}
		}
	}
	return limit >= 0 && req > limit
}

// overflow: the input is too large for the model. A quantity (tokens, characters, context,
// window, prompt, input, length, size) together with either an exceeding against a limit
// ("exceeds … maximum", "> 200000 maximum", "longer than … context"), or "too long", "too
// large", "too many", "overflow", a request to reduce the input, or a statement of the input
// cap, or the allowed range of the input's length or size. Two guards (a 429 counts as a per-time limit): an error about the output cap alone
// (max_tokens, completion tokens, with no word of the input) is not an overflow; and a
// per-time rate limit is an overflow only when the one request is larger than the limit
// ("Limit 6000, Requested 20000", "request too large").
func (f *features) overflow(status int) bool {
	g := f.over
	if f.nonASCII && f.cjkOverflow() {
		return true
	}
	if g&kQuantity == 0 || g&kInput != 0 && f.inputFits() {
		return false
	}
	if g&kInput == 0 && f.word("quota", "quotas") {
		return false // "Token usage exceeded quota limit": an allowance spent, not the window
	}
	if g&kOutput != 0 && g&kInput == 0 {
		return false
	}
	if status == 429 || g&kPerTime != 0 {
		return g&kTooLarge != 0 || f.requestExceedsLimit()
	}
	if g&(kTooLarge|kTooMuch) != 0 || f.reduce() || f.inputCap() {
		return true
	}
	if g&kRange != 0 && g&kInput != 0 && g&kMeasure != 0 {
		return true // "Range of input length should be [1, 6000]": the input left its allowed range
	}
	if g&kBelow != 0 && g&kInput != 0 {
		return true // "`inputs` must have less than 2048 tokens", "prompt_tokens must be less than max_seq_len"
	}
	return g&kExceed != 0 && g&kLimit != 0
}

// cjkOverflow: the input said in Chinese to be too long: "Prompt 超长" (over-long),
// "上下文长度超过限制" (the context's length exceeds the limit). The output's cap reached
// ("输出 … 上限") is a truncation, not this.
func (f *features) cjkOverflow() bool {
	if f.contains("输出") {
		return false
	}
	return f.contains("超长", "过长") && (f.over&kQuantity != 0 || f.contains("上下文", "输入", "提示", "文本", "长度")) ||
		f.contains("上下文", "长度") && f.contains("超过", "超出") && f.contains("限制", "上限", "最大")
}

// filter: a provider's safety, moderation or content-policy block, in English or in the other
// languages providers answer in. Strong words decide alone; "safety", "policy", "sensitive",
// "blocked", "filtered", "refused" and "risk" need a word of what was judged (content, prompt,
// output) or of the judging (violation, detected, flagged, rejected, system).
func (f *features) filter() bool {
	if f.over&kFilterStrong != 0 && f.invalid() && !f.judgment() {
		// "Your request contains invalid content filter policy", "Guardrail was enabled but
		// input is in incorrect format": the filter named, nothing judged; a request's shape.
		return false
	}
	if f.over&kFilterStrong != 0 || f.over&kFilterSoft != 0 && f.has&kJudged != 0 {
		return true
	}
	if f.over&kFilterSoft != 0 && f.word("sensitive request", "sensitive requests", "sensitive word", "sensitive words") {
		return true // "Sensitive request error": the request was judged
	}
	if f.contains("richtlinie", "sicherheit") {
		return true
	}
	return f.nonASCII && f.contains("安全", "敏感", "违规", "違規", "审核", "審核", "不当", "不當", "不適切", "违反", "有害", "风控", "風控",
		"정책", "안전", "유해", "безопас", "модерац", "запрещ", "недопуст", "polític", "sécurité", "modération")
}

// judgment: words of content judged ("flagged", "blocked", "violates", "triggering", "unsafe"),
// as opposed to the filter's name alone.
func (f *features) judgment() bool {
	return f.word("blocked", "flagged", "filtered", "detected", "triggered", "triggering", "violation", "violates",
		"violated", "violating", "refused", "rejected", "harmful", "unsafe", "inappropriate", "prohibited",
		"offensive", "toxic", "nsfw", "objectionable", "sensitive", "moderated", "censored")
}

// billing: quota or credit exhausted, which only a person fixes (pay, change plan). Google
// sends "check your plan and billing details" on every quota 429, per-minute ones included,
// so for Google only a per-day quota or a zero limit counts.
func (f *features) billing(provider string, quotas []string) bool {
	perDay := f.any(kPerDay) && f.any(kQuotaWord)
	p := strings.ToLower(provider)
	google := strings.HasPrefix(p, "google") || strings.HasPrefix(p, "gemini") || strings.HasPrefix(p, "vertex") ||
		len(quotas) > 0 || f.any(kGoogle)
	if google {
		// "enable billing" (German "Aktivieren Sie die Abrechnung") asks a person to pay.
		return perDay || f.any(kLimitZero) || (f.any(kFree) && f.any(kTier) && f.any(kNegation)) ||
			f.word("enable billing") || f.contains("abrechnung")
	}
	// A rate stated per minute or second is a rate limit, whatever plan it suggests buying.
	upgrade := f.any(kUpgrade) && f.any(kPlan) && !f.any(kShortTime)
	spent := f.word("usage") && f.word("quota") && f.over&kExceed != 0 && !f.any(kShortTime|kPerTime) // "Token usage exceeded quota limit"
	return perDay || upgrade || spent || f.over&kBilling != 0 && !f.any(kShortTime) ||
		f.nonASCII && (f.contains("余额不足", "欠费", "充值", "额度不足", "餘額不足", "使用上限",
			"закончились токены", "недостаточно средств", "пополните баланс") ||
			f.contains("套餐", "订阅", "会员") && f.contains("到期", "过期")) // a plan or subscription that ran out
}

// recursion: an agent graph's recursion limit, or an agent loop that used up its turns
// ("Maximum session turns exceeded", "Reached max turns (10)"); a turn cap merely named is a
// setting ("max_turns must be a positive integer").
func (f *features) recursion() bool {
	if f.any(kRare) && f.word("usage limit exceeded") && f.word("request limit") {
		return true // pydantic-ai's request_limit: the run's cap on model requests, its turns
	}
	return f.any(kRecursion) || f.any(kTurnCap) && (f.over&kExceed != 0 || f.stem("reach") || f.word("hit", "used up", "ran out", "stopped", "exhausted"))
}

// abort: the caller aborted, cancelled or interrupted the request. A connection that was
// aborted ("Connection aborted", ECONNABORTED) is the transport's, not the caller's.
// An abort for a timeout ("canceled due to the configured HttpClient.Timeout", an
// InterruptedIOException: timeout) is the timeout's; one for the server's lack or state ("loading
// aborted due to insufficient system resources", "Failed to load model … Operation canceled"),
// or whose stated cause is a fault ("interrupted due to a server error"), is the server's.
func (f *features) abort() bool {
	// The abort words inside a name are none (Java's InterruptedIOException), but Go's "context
	// canceled", a name too, is the caller's cancel.
	aborted := f.over&kAbort != 0 || f.has&kAbort != 0 && f.word("context canceled", "context cancelled")
	if f.callerLeft() {
		return true // "Client connection prematurely closed": the requester went away
	}
	// "Aborted - Response was truncated — the model ran out of output tokens": the cap's.
	cappedOut := f.truncated() && f.any(kOutputCap|kOutput)
	// "Model stream interrupted … stream ended before completion", "cancelled mid-stream
	// (Premature Close)": the reply was cut; a cancel is the caller's only when a user is named.
	cut := f.over&kCut != 0 && !f.word("user", "users")
	return aborted && !f.any(kConnection) && !f.any(kResource|kState) && !f.timeout() && !f.abortedByServer() && !cappedOut && !cut &&
		!(f.contains(" due to ", " because of ") && f.any(kFault)) // "interrupted due to a server error"
}

// framingBroken: the body's transfer framing broke off: fewer bytes than its length announced,
// an empty chunk-size line ("Not enough data to satisfy transfer length header",
// urllib3's InvalidChunkLength with its empty length read).
func (f *features) framingBroken() bool {
	return f.word("transfer length", "chunk length", "chunked transfer encoding")
}

// proxyRefused: a proxy would not connect or tunnel ("ProxyError('Cannot connect to proxy.',
// OSError('Tunnel connection failed: 400 Bad Request'))"): the request never reached the API.
func (f *features) proxyRefused() bool {
	return f.word("tunnel connection failed", "cannot connect to proxy", "unable to connect to proxy")
}

// abortedByServer: the serving side aborted the reply ("aborted_by_worker", "cancelled by the
// server"): not the caller's cancel but the server's failure.
func (f *features) abortedByServer() bool {
	return f.has&kAbort != 0 && f.word("by") && f.followed([]string{"aborted", "abort", "cancelled", "canceled", "killed"}, 3,
		[]string{"worker", "workers", "server", "backend", "upstream", "engine", "provider", "scheduler"}, nil)
}

// streamCut: a response that began and broke off. A process that terminated crashed; nothing
// was cut.
func (f *features) streamCut() bool {
	if f.over&kProcess != 0 {
		return false
	}
	if f.word("handshake") && !f.any(kStreaming) {
		return false // "Remote host terminated the handshake": no reply had begun
	}
	if f.word("agent terminated", "agent execution terminated", "execution terminated") && !f.any(kStreaming) {
		return false // "Agent execution terminated due to error": the agent's run, not a reply, ended
	}
	// "Model stream ended with empty response text": nothing came, and the end was no cut.
	// "流异常中断，未收到完整响应": the stream broke off, no complete reply came.
	return f.over&kCut != 0 || f.nonASCII && f.contains("流异常中断", "流中断", "流式中断", "未收到完整") || f.over&kEnded != 0 && !f.empty() || f.any(kStreaming) && f.any(kStreamBreak) ||
		f.word("not") && f.followed([]string{"payload", "body"}, 2, []string{"not"}, []string{"completed", "complete"}) // "Response payload is not completed"
}

// causedByTimer: the text gives a timer as the cause ("terminated (cause: Body Timeout Error)"),
// so a reply broken off by it is the timeout's.
func (f *features) causedByTimer() bool {
	return f.any(kTimeout) && f.followed([]string{"cause", "caused", "because"}, 4, []string{"timeout", "timed", "deadline"}, nil)
}

// timeout: a deadline passed.
func (f *features) timeout() bool {
	if !f.any(kTimeout) {
		return f.nonASCII && f.contains("超时", "逾時", "タイムアウト", "истекло время", "время ожидания истекло", "превышено время ожидания",
			"не отвечает") // "Сервер ИИ не отвечает": the server does not answer
	}
	// "deadline 5s is too short. Minimum allowed deadline is 10s": a parameter's bound.
	return !f.word("too short", "minimum allowed")
}

// nameLookup: the host's name could not be resolved; a resolver that timed out is a lookup
// failure, not a deadline of the request.
func (f *features) nameLookup() bool {
	return f.word("unknown host", "no such host", "failed to resolve", "could not resolve", "couldn t resolve",
		"failure in name resolution", "name resolution failed") || f.stem("dns")
}

// callerLeft: the requester, the client side of the connection, went away: "Client connection
// prematurely closed", "client disconnected", a server's stream whose receiver was dropped.
func (f *features) callerLeft() bool {
	if f.word("receiver dropped") {
		return true // a server's "Failed to send event. Receiver dropped.": the request's stream was gone
	}
	if !f.word("client") {
		return false
	}
	ws := f.fields()
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] != "client" {
			continue
		}
		switch ws[i+1] {
		case "closed", "disconnected", "went", "gone":
			return true
		case "connection":
			for j := i + 2; j <= i+3 && j < len(ws); j++ {
				if ws[j] == "closed" || ws[j] == "aborted" {
					return true
				}
			}
		}
	}
	return false
}

// credentialsRejected: the credentials were named and refused ("the provider rejected the
// gateway's credentials"): a person fixes them, whatever status a gateway wrapped them in.
func (f *features) credentialsRejected() bool {
	return f.over&kCredentials != 0 && f.word("rejected", "refused", "revoked") && f.followed([]string{"rejected", "refused", "revoked"}, 5,
		[]string{"credentials", "credential", "key", "token", "signature"}, nil)
}

// barred: the account or its access was ended: "Access terminated", "account suspended". A
// person restores it, whatever policy the message names as the reason.
func (f *features) barred() bool {
	return f.over&kAccount != 0 && f.over&kAccountBarred != 0 ||
		f.nonASCII && f.contains("账户", "账号", "帐户", "帐号", "帳戶", "帳號") && f.contains("锁定", "冻结", "封禁", "停用", "禁用", "注销")
}

// unparsable: a reply came and could not be parsed ("could not parse the response"): something
// came, so it was not empty.
func (f *features) unparsable() bool {
	return f.word("could not parse", "couldn t parse", "failed to parse", "unable to parse", "did not match", "does not match")
}

// validationDetail: a request validator's report of the field it rejected, in the shape
// FastAPI and pydantic give it ({"type": "extra_forbidden", "loc": ["body", "dimensions"],
// "msg": "Extra inputs are not permitted"}), whatever the client wrote around it.
func (f *features) validationDetail() bool { return f.word("loc") && f.word("msg") }

// undecodable: what came back could not be decoded, or what was to be sent not encoded
// ("Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON", node-fetch's "invalid json response
// body … reason: Unexpected end of JSON input", "invalid UTF-8 in SSE stream",
// "Stream decode error: Failed to parse … event", "Serialization error in …Request"): a
// client-side failure that names no cause upstream, under whatever banner the client put on it
// ("Unable to connect", "Network error:", "Connection failed").
func (f *features) undecodable() bool {
	return f.word("not valid json", "unexpected token", "decode error", "invalid utf 8", "serialization error",
		"malformed response", "malformed json response", "invalid json response")
}

// inputFits: a count of the input stated under its cap ("Input tokens: ~7,123 of 200,000"):
// whatever was exceeded, the window was not.
func (f *features) inputFits() bool {
	if !countOfCount(f.norm) {
		return false
	}
	ws := f.fields()
	for i, w := range ws {
		if w != "input" && w != "prompt" {
			continue
		}
		for j := i + 1; j+2 < len(ws) && j <= i+3; j++ {
			if isNumber(ws[j]) && ws[j+1] == "of" && isNumber(ws[j+2]) {
				n, err1 := strconv.ParseInt(ws[j], 10, 64)
				m, err2 := strconv.ParseInt(ws[j+2], 10, 64)
				return err1 == nil && err2 == nil && n < m
			}
		}
	}
	return false
}

// untrusted: a TLS certificate the client would not trust.
func (f *features) untrusted() bool { return f.any(kCertificate) && f.any(kUntrusted) }

// transport: the request never completed at the transport level. An EOF a schema validator
// met is the model's output ending early ([features.truncated]), not the connection's; a
// connection named in advice ("Check your connection settings") is a guess, not a report.
func (f *features) transport() bool {
	return f.stated&kTransport != 0 || f.nonASCII && f.contains("连接中断", "连接失败", "网络错误", "网络异常", "ошибка сети", "нет соединения") || f.any(kEOF) && !f.any(kSchema)
}

// rate: a rate limit or throttle, reported (not a usage report or a rate-limit header's name).
func (f *features) rate() bool {
	return f.over&kRate != 0 || f.nonASCII && f.contains("限速", "限流", "频率限制", "速率限制", "过于频繁", "请求过多", "并发")
}

// credentials: a missing, wrong or unauthorised credential, or an account that may not be
// used.
func (f *features) credentials() bool {
	return f.over&kCredentials != 0 || f.over&kAccount != 0 && f.over&kAccountBarred != 0 ||
		f.nonASCII && f.contains("权限", "無權", "无权", "未授权", "鉴权", "认证失败", "認證失敗") // permission, authentication
}

// noModel: the model asked for does not exist.
func (f *features) noModel() bool { return f.any(kModel) && f.any(kNotFound) }

// empty: the provider answered with nothing: "no output", "none were returned", "response is
// empty", "without sending any chunks". A reply that could not be parsed came, so it is not
// empty.
func (f *features) empty() bool {
	return f.emptyWords() && !f.unparsable()
}

// emptyWords: the words of an answer that held nothing, whatever else the text says.
func (f *features) emptyWords() bool {
	return f.any(kEmpty) || f.stem("empty") && f.word("none") ||
		// "Response from model was empty": the reply named, then within a few words that it was empty
		f.word("empty") && f.followed([]string{"response", "reply", "output", "answer", "completion"}, 4, []string{"was", "is"}, []string{"empty"}) ||
		f.word("empty") && f.followed([]string{"empty"}, 2, []string{"response", "reply", "output", "answer", "completion", "result"}, nil) || // "empty vendor result"
		f.word("0 tokens", "0 output tokens", "0 completion tokens") && f.word("generated", "output", "completion") || // "Output generated in 0.25 seconds (0.00 tokens/s, 0 tokens"
		f.word("return value") && f.followed([]string{"content", "response", "reply", "text", "output"}, 2, []string{"null", "none", "nil"}, nil) || // "the return value of Result.content() is null"
		f.word("missing") && f.any(kCarried) && f.any(kReply) || // "Content field missing from Gemini response"
		f.nonASCII && f.contains("空响应", "空回复", "空的响应", "返回为空", "响应为空", "内容为空", "回复为空")
}

// truncated: the answer was cut off against the output cap ("the length limit was reached",
// LengthFinishReasonError, "response too long"), or a schema validator met the end of the
// model's JSON before it was complete ("Invalid JSON: EOF while parsing a string").
func (f *features) truncated() bool {
	if f.nonASCII && f.contains("输出") && f.contains("上限") { // "达到单次输出的 token 上限": the output's cap reached
		return true
	}
	return f.any(kTruncated) || f.any(kOutputCap) && (f.stem("reach") || f.word("hit", "exhaustion", "exhausted")) ||
		f.word("output tokens limit") && f.over&kExceed != 0 || // a run's cap on output tokens, exceeded
		f.any(kEOF) && f.any(kSchema) ||
		f.over&kTruncWord != 0 && f.any(kReply|kOutput) || // "response was truncated", "the output is incomplete"
		f.any(kReply) && f.any(kOutput) && f.over&kExceed != 0 && f.any(kLimit) // "response exceeded the 32000 output token maximum"
}

// providerFault: the provider failed on its side, or the process serving the model
// terminated ("llama runner process has terminated: exit status 1"; the exit code of curl or
// of a command is the client's tool, not a model's process), or the serving side aborted the
// reply.
func (f *features) providerFault() bool {
	return f.any(kFault) || f.word("error processing", "error in processing", "error while processing") && !f.invalid() || f.any(kResource|kState) ||
		f.over&kProcess != 0 && f.any(kProcessEnd) && !f.word("curl", "command") || f.abortedByServer() ||
		f.nonASCII && f.contains("负载", "饱和", "过载", "繁忙", "稍后再试", "服务不可用",
			"внутренняя ошибка", "сервис недоступен", "сервис временно недоступен", "перегружен")
}

// servingGone: the serving side has nothing left to run the request on: "No more data centers
// to forward the request to", "no servers available", "no available workers", "server is not
// running"; or a gateway got nothing back from the provider behind it ("Failed to get response
// from provider").
func (f *features) servingGone() bool {
	if f.word("failed to get response from", "failed to get a response from") && f.word("provider", "upstream", "backend") {
		return true
	}
	if f.word("server is not running", "server not running") {
		return true // "LLama server is not running": the serving process the reply needs is down
	}
	return f.any(kNegation) && f.word("no") && f.followed([]string{"no"}, 3,
		[]string{"center", "centers", "datacenters", "servers", "workers", "replicas", "gpus", "instances", "backends", "nodes"}, nil)
}

// quotaResets: a quota that resets at a stated time ("Your quota will reset after 8h44m7s"):
// with a wait of hours, a plan's budget spent, not a rate.
func (f *features) quotaResets() bool { return f.word("reset", "resets") && f.any(kQuotaWord) }

// modelGaveNothing: the model (or the agent) is said to have given no answer: "Model didn't
// respond", "Agent produced no response", "Model did not produce a final response".
func (f *features) modelGaveNothing() bool {
	if !f.any(kNegation) || !f.word("model", "agent", "llm", "assistant") {
		return false
	}
	ws := f.fields()
	for i, w := range ws {
		switch w {
		case "model", "agent", "llm", "assistant":
		default:
			continue
		}
		for j := i + 1; j <= i+3 && j < len(ws); j++ {
			if ws[j] != "no" && ws[j] != "not" && ws[j] != "didn" && ws[j] != "never" {
				continue
			}
			for k := j + 1; k <= j+4 && k < len(ws); k++ {
				switch ws[k] {
				case "respond", "responded", "response", "reply", "replied", "answer", "answered", "output":
					// "did not respond within 30 seconds", "in time": a deadline's, not an empty reply
					return k+1 >= len(ws) || ws[k+1] != "within" && !(ws[k+1] == "in" && k+2 < len(ws) && ws[k+2] == "time")
				case ".":
					k = len(ws)
				}
			}
		}
	}
	return false
}

// raisesOutputCap: the remedy the text asks for is a larger output cap ("Increase the
// `max_tokens` model setting"): the reply ran out of room, the input fits.
func (f *features) raisesOutputCap() bool {
	return f.over&kOutput != 0 && f.word("increase", "raise", "increasing", "raising") && f.followed([]string{"increase", "raise", "increasing", "raising"}, 3, []string{"max"}, []string{"tokens", "output", "new", "completion"})
}

// waitedForNothing: a timer fired while waiting for a reply to begin ("idle timeout waiting for
// SSE"): nothing had come, so nothing was cut.
func (f *features) waitedForNothing() bool {
	return f.word("waiting") && f.timeout() && f.followed([]string{"timeout", "timed"}, 3, []string{"waiting"}, []string{"for"})
}

// countOfCount reports whether norm holds a number, "of", and a number ("7123 of 200000").
func countOfCount(norm string) bool {
	for i := 0; ; {
		j := strings.Index(norm[i:], " of ")
		if j < 0 {
			return false
		}
		i += j
		if i > 0 && isDigit(rune(norm[i-1])) && i+4 < len(norm) && isDigit(rune(norm[i+4])) {
			return true
		}
		i += 4
	}
}

// invalid: the request itself is malformed, in English or Chinese ("请求格式有误", the request's
// format is wrong).
func (f *features) invalid() bool {
	if f.word("invalid response", "invalid reply", "invalid stream", "invalid output", "invalid completion") && !f.word("request", "parameter", "argument", "field") {
		return false // "Invalid stream received from model": the reply was bad, not the request
	}
	return f.any(kInvalid) || f.nonASCII && f.contains("格式有误", "格式错误", "参数错误", "参数有误", "参数无效", "无效参数", "非法参数",
		"已下线", "不存在") // taken offline, does not exist: the API or model asked for
}
