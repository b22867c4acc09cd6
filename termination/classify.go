package termination

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Classify is the exception feeder: it classifies an error into the taxonomy. It never panics
// and always returns a valid category; nil and an error nothing matches are [Unknown], a
// recorded fact rather than a guess. Provider is the first [APIError.Provider] in the chain.
//
// The order, and why:
//
//  0. A reason committed on the chain ([Attach], [ReasonOf]) is returned as it is, and no text
//     is read at all. The site that attached it watched the failure happen, while the message is
//     the one part of an error untrusted data reaches: a filename such as
//     "api-timeout-investigation.pdf" interpolated into a rejection would otherwise read back
//     as a retryable timeout. Preferring the committed value cannot go stale the way sanitising
//     text against today's arms would. A reason parked without a category is passed over.
//  1. Context overflow ([IsContextOverflow]): typed, named, or one of its arms. First because an
//     overflow is also a 400 (or, for a per-minute token limit the request can never fit, a
//     413 or 429), and its remedy, reducing the context, is the only one that works.
//  2. Typed and named cases, in the origin's order: cancelled (context.Canceled; AbortError,
//     ModelAbortError, APIUserAbortError), suspended (GraphInterrupt), tool_error
//     (ToolException), recursion_limit (GraphRecursionError, or "recursion limit" in the text),
//     timeout (context.DeadlineExceeded, os.ErrDeadlineExceeded, any Timeout() bool that says
//     so, ETIMEDOUT; TimeoutError, APITimeoutError, APIConnectionTimeoutError), network_error
//     (ECONNRESET, ECONNREFUSED, EPIPE and kin, io.ErrUnexpectedEOF, an EOF straight from the
//     HTTP client, *net.DNSError, *net.OpError, TLS and x509 errors; APIConnectionError). They
//     precede the status because what they type is surer than a status bucket: an abort is also
//     a failed request, and a cancelled context surfaces inside a *url.Error.
//  3. Quota or billing exhaustion: auth_failed (see billing below). Ahead of the status because
//     providers put it in the 429, 403 and 400 buckets, and the status's remedy (back-off) would
//     tell the caller to wait for something only a human can fix.
//  4. The HTTP status of the first status carrier (any error with HTTPStatus() int, such as
//     *APIError; a status below 400 gives way to the one the body states): 429 rate_limited,
//     401 and 403 auth_failed, 408 and 504 timeout, any other 5xx provider_error. Detail is the
//     status. A provider-set status beats matched prose.
//  5. The provider's structured codes (error type, code, Google status and reason), exact and
//     case-insensitive: they name a cause where there is no decisive status, as in an error
//     that arrives inside a 200 stream (Anthropic's overloaded_error). Detail is the code.
//  6. The prose arms, in the origin's order: rate, auth, timeout, network, provider; then
//     content refusal. No detail.
//  7. Status 400, or invalid-request prose: invalid_request, detail the actual status. 400 is a
//     bucket rather than a cause (providers put bad keys, expired grants and exhausted quotas in
//     it), so it stays behind every specific arm: each category those recover names a remedy
//     invalid_request has none of.
//  8. Otherwise unknown, detail the error name, else the status.
func Classify(err error) (c Classification) {
	if err == nil {
		return Classification{Category: Unknown}
	}
	defer func() {
		// The last line of defence: an Error, Unwrap or HTTPStatus method of someone else's
		// error type can panic, and a feeder must not turn one failure into another.
		if recover() != nil {
			c = Classification{Category: Unknown}
		}
	}()
	var ev evidence
	if ev.gather(err) {
		return committedClassification(ev.committed)
	}
	var buf [512]byte
	text := ev.readText(buf[:0])
	return ev.classify(text)
}

// committedClassification is a committed reason as a classification: its category, provider
// and detail, nothing added. A category outside the vocabulary is recorded as [Unknown] with
// the string kept in Detail, as [New] does.
func committedClassification(r Reason) Classification {
	c := r.Classification()
	if !c.Category.Valid() {
		if c.Detail == "" {
			c.Detail = string(c.Category)
		}
		c.Category = Unknown
	}
	return c
}

// evidence is what the classifier knows about one error: its chain, the typed facts found
// without reading any text, and, once the text is read, the needles it holds.
type evidence struct {
	chain     errChain
	committed Reason

	provider, name string
	status         int // the first carrier's HTTP status, or the body's when that is below 400

	overflowTyped           bool
	cancelled               string        // detail of a typed cancellation
	timeout, timeoutGeneric string        // detail of a typed timeout; a generic Timeout() one
	network, networkGeneric string        // detail of a typed network failure; a generic one
	apis                    [2]*APIError  // the chain's first APIErrors, whose bodies are read
	bodies                  [2]bodyFields // what the body reader found in each
	napi                    int
	set                     needleSet // the needles in the text, once it is read
}

// gather walks err's chain and reports whether a reason is committed on it. When none is, it
// records the typed facts.
func (ev *evidence) gather(err error) bool {
	ev.chain.walk(err)
	if r, ok := ev.chain.committed(); ok {
		ev.committed = r
		return true
	}
	ev.gatherTyped()
	return false
}

// gatherTyped records the typed facts of every error in the chain, calling no Error method.
func (ev *evidence) gatherTyped() {
	for i := range ev.chain.n {
		e := ev.chain.nodes[i]
		ev.typed(e)
		// The HTTP client's EOF: the server closed the connection before answering.
		if isSentinel(e, io.EOF) && ev.chain.under(i, isURLError) {
			setFirst(&ev.network, "io.EOF")
		}
	}
	if ev.status < 400 {
		for i := range ev.napi {
			if n := ev.bodies[i].status(); n >= 400 {
				ev.status = n
				break
			}
			if n := statusCode(ev.apis[i].Code); n >= 400 {
				ev.status = n
				break
			}
		}
	}
}

// statusCode reads an error code that is an HTTP status in disguise ("429"); 0 otherwise.
func statusCode(code string) int {
	if len(code) != 3 || code[0] < '1' || code[0] > '5' {
		return 0
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		return 0
	}
	return n
}

// typed records what one error of the chain is, by its type or identity.
func (ev *evidence) typed(e error) {
	switch x := e.(type) {
	case *APIError:
		if ev.napi < len(ev.apis) {
			ev.apis[ev.napi] = x
			ev.bodies[ev.napi].read(x.Body)
			ev.napi++
		}
		if ev.name == "" {
			ev.name = x.Name
		}
		if ev.provider == "" {
			ev.provider = x.Provider
		}
	case syscall.Errno:
		switch x {
		case syscall.ETIMEDOUT:
			setFirst(&ev.timeout, "syscall.ETIMEDOUT")
		case syscall.ECONNRESET:
			setFirst(&ev.network, "syscall.ECONNRESET")
		case syscall.ECONNREFUSED:
			setFirst(&ev.network, "syscall.ECONNREFUSED")
		case syscall.ECONNABORTED:
			setFirst(&ev.network, "syscall.ECONNABORTED")
		case syscall.EPIPE:
			setFirst(&ev.network, "syscall.EPIPE")
		case syscall.ENETRESET:
			setFirst(&ev.network, "syscall.ENETRESET")
		case syscall.ENETUNREACH:
			setFirst(&ev.network, "syscall.ENETUNREACH")
		case syscall.EHOSTUNREACH:
			setFirst(&ev.network, "syscall.EHOSTUNREACH")
		case syscall.ENETDOWN:
			setFirst(&ev.network, "syscall.ENETDOWN")
		}
	case *net.DNSError:
		setFirst(&ev.network, "*net.DNSError")
	case *net.OpError:
		setFirst(&ev.networkGeneric, "*net.OpError")
	case tls.RecordHeaderError:
		setFirst(&ev.network, "tls.RecordHeaderError")
	case tls.AlertError:
		setFirst(&ev.network, "tls.AlertError")
	case *tls.CertificateVerificationError:
		setFirst(&ev.network, "*tls.CertificateVerificationError")
	case x509.UnknownAuthorityError:
		setFirst(&ev.network, "x509.UnknownAuthorityError")
	case x509.HostnameError:
		setFirst(&ev.network, "x509.HostnameError")
	case x509.CertificateInvalidError:
		setFirst(&ev.network, "x509.CertificateInvalidError")
	}
	switch {
	case isSentinel(e, ErrContextOverflow):
		ev.overflowTyped = true
	case isSentinel(e, context.Canceled):
		setFirst(&ev.cancelled, "context.Canceled")
	case isSentinel(e, context.DeadlineExceeded):
		setFirst(&ev.timeout, "context.DeadlineExceeded")
	case e == os.ErrDeadlineExceeded:
		setFirst(&ev.timeout, "os.ErrDeadlineExceeded")
	case isSentinel(e, io.ErrUnexpectedEOF):
		setFirst(&ev.network, "io.ErrUnexpectedEOF")
	}
	if t, ok := e.(interface{ Timeout() bool }); ok && t.Timeout() {
		setFirst(&ev.timeoutGeneric, "Timeout()")
	}
	if ev.status == 0 {
		if s, ok := e.(interface{ HTTPStatus() int }); ok {
			if n := s.HTTPStatus(); n >= 100 && n < 600 {
				ev.status = n
			}
		}
	}
}

func isURLError(e error) bool {
	_, ok := e.(*url.Error)
	return ok
}

// isSentinel is one step of errors.Is: e is target, or says it is. The chain walk supplies the
// unwrapping, bounded.
func isSentinel(e, target error) bool {
	if e == target {
		return true
	}
	x, ok := e.(interface{ Is(error) bool })
	return ok && x.Is(target)
}

func setFirst(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// readText appends the chain's text to buf, finds the needles in it, and returns the text.
func (ev *evidence) readText(buf []byte) []byte {
	text := appendChain(buf, &ev.chain, ev.bodies[:ev.napi])
	ev.set = classifyLex.m.scan(text)
	return text
}

// overflow is step 1 of the order: typed, named, or an arm.
func (ev *evidence) overflow(text []byte) bool {
	if ev.overflowTyped || ev.name == "ContextOverflowError" {
		return true
	}
	b := budgetOf(text, &ev.set)
	for i := range classifyLex.overflow {
		if classifyLex.overflow[i].matches(&ev.set, b) {
			return true
		}
	}
	return false
}

// classify runs steps 1 to 8 of the order [Classify] documents on the text readText returned.
func (ev *evidence) classify(text []byte) Classification {
	p := ev.provider
	status := ""
	if ev.status != 0 {
		status = strconv.Itoa(ev.status)
	}
	named := func(cat Category, fallback string) Classification {
		d := ev.name
		if d == "" {
			d = fallback
		}
		return Classification{Category: cat, Provider: p, Detail: d}
	}

	// 1. Context overflow.
	if ev.overflow(text) {
		fallback := status
		if ev.overflowTyped {
			fallback = "termination.ErrContextOverflow"
		}
		return named(ContextOverflow, fallback)
	}

	// 2. Typed and named cases.
	switch ev.name {
	case "AbortError", "ModelAbortError", "APIUserAbortError":
		return named(Cancelled, "")
	}
	if ev.cancelled != "" {
		return Classification{Category: Cancelled, Provider: p, Detail: ev.cancelled}
	}
	switch ev.name {
	case "GraphInterrupt":
		return named(Suspended, "")
	case "ToolException":
		return named(ToolError, "")
	case "GraphRecursionError":
		return named(RecursionLimit, "")
	}
	if ev.set.has(classifyLex.recursion) {
		return named(RecursionLimit, "recursion limit")
	}
	switch ev.name {
	case "TimeoutError", "APITimeoutError", "APIConnectionTimeoutError":
		return named(Timeout, "")
	}
	if d := firstOf(ev.timeout, ev.timeoutGeneric); d != "" {
		return Classification{Category: Timeout, Provider: p, Detail: d}
	}
	if ev.name == "APIConnectionError" {
		return named(NetworkError, "")
	}
	if d := firstOf(ev.network, ev.networkGeneric); d != "" {
		return Classification{Category: NetworkError, Provider: p, Detail: d}
	}

	// 3. Quota or billing exhaustion.
	if d, ok := ev.billing(status); ok {
		return Classification{Category: AuthFailed, Provider: p, Detail: d}
	}

	// 4. The HTTP status.
	switch s := ev.status; {
	case s == 429:
		return Classification{Category: RateLimited, Provider: p, Detail: status}
	case s == 401 || s == 403:
		return Classification{Category: AuthFailed, Provider: p, Detail: status}
	case s == 408 || s == 504:
		return Classification{Category: Timeout, Provider: p, Detail: status}
	case s >= 500:
		return Classification{Category: ProviderError, Provider: p, Detail: status}
	}

	// 5. Structured codes.
	var found Classification
	ev.eachCode(func(code string) bool {
		if cat, ok := lookupCode(codeCategories, code); ok {
			found = Classification{Category: cat, Provider: p, Detail: code}
			return false
		}
		return true
	})
	if found.Category != "" {
		return found
	}

	// 6. Prose arms.
	for _, arm := range classifyLex.prose {
		if ev.set.any(arm.needles) {
			return Classification{Category: arm.category, Provider: p}
		}
	}

	// 7. The 400 bucket.
	if ev.status == 400 || ev.set.any(classifyLex.invalid) {
		return Classification{Category: InvalidRequest, Provider: p, Detail: status}
	}

	// 8. Nothing matched.
	return named(Unknown, status)
}

// billing recognises quota or billing exhaustion, which no back-off fixes: OpenAI's
// insufficient_quota 429 ("You exceeded your current quota, please check your plan and billing
// details"), Anthropic's "credit balance is too low" 400 and billing_error, a 402 (OpenRouter's
// "Insufficient credits", DeepSeek's "Insufficient Balance"), and a Google quota that is per
// day (quotaId …PerDay…) or zero ("limit: 0," on a model the free tier does not include).
//
// The category is auth_failed, because its remedy, fix-credentials ("repair credentials or
// configuration first"), is the honest one: a human has to top up, change plan or enable
// billing, and then a retry is worth making. rate_limited would say back-off, and a caller would
// wait and fail identically; invalid_request would say no retry is ever worthwhile.
//
// Gemini sends the very sentence OpenAI reserves for billing on every quota 429, per-minute
// ones included, so with Google evidence that sentence proves nothing and only the quota ids
// decide. Detail is the code when a structured one decided, else the status.
func (ev *evidence) billing(status string) (string, bool) {
	var code string
	ev.eachCode(func(c string) bool {
		if _, ok := lookupCode(billingCodes, c); ok {
			code = c
			return false
		}
		return true
	})
	switch {
	case code != "":
		return code, true
	case ev.status == 402:
		return status, true
	case ev.set.any(classifyLex.billing):
		return status, true
	case !ev.google() && ev.set.any(classifyLex.billingOutsideGoogle):
		return status, true
	case ev.set.has(classifyLex.quota) && (ev.set.any(classifyLex.perDay) || ev.set.has(classifyLex.limitZero)):
		return status, true
	}
	return "", false
}

// google reports evidence that the error is Google's (Gemini API or Vertex).
func (ev *evidence) google() bool {
	p := strings.ToLower(ev.provider)
	for _, prefix := range [...]string{"google", "gemini", "vertex"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return ev.set.any(classifyLex.googleMarks)
}

// eachCode calls yield with every type, status and code string the chain's APIErrors carry,
// their own fields first, then their bodies', until yield returns false.
func (ev *evidence) eachCode(yield func(string) bool) {
	for i := range ev.napi {
		e := ev.apis[i]
		for _, c := range [...]string{e.Type, e.Code} {
			if c != "" && !yield(c) {
				return
			}
		}
		if !ev.bodies[i].json {
			continue
		}
		for _, c := range ev.bodies[i].codes() {
			if c != "" && !yield(c) {
				return
			}
		}
	}
}

// lookupCode looks code up in m, case-insensitively, without allocating.
func lookupCode(m map[string]Category, code string) (Category, bool) {
	var buf [64]byte
	if code == "" || len(code) > len(buf) {
		return "", false
	}
	for i := range len(code) {
		c := code[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	cat, ok := m[string(buf[:len(code)])]
	return cat, ok
}

// billingCodes are the structured codes of quota or billing exhaustion, in the form of
// codeCategories (lower-case keys); step 3 of the order reads them.
var billingCodes = map[string]Category{
	"insufficient_quota":         AuthFailed, // OpenAI
	"billing_not_active":         AuthFailed, // OpenAI
	"billing_hard_limit_reached": AuthFailed, // OpenAI
	"billing_error":              AuthFailed, // Anthropic
	"insufficient_balance":       AuthFailed,
	"payment_required":           AuthFailed,
}

// codeCategories maps providers' structured codes (lower-case) to the cause they name. Only
// codes that name one cause whatever the status are here: Ollama sends type api_error on a 400,
// so api_error is not, and invalid-request codes are left to the 400 bucket, which keeps the
// status as the detail.
var codeCategories = map[string]Category{
	// Credentials.
	"invalid_api_key":             AuthFailed, // OpenAI
	"api_key_invalid":             AuthFailed, // Google reason, on a 400 INVALID_ARGUMENT
	"unauthenticated":             AuthFailed, // Google status
	"permission_denied":           AuthFailed, // Google status
	"authentication_error":        AuthFailed, // Anthropic
	"permission_error":            AuthFailed, // Anthropic
	"invalid_grant":               AuthFailed, // OAuth
	"accessdeniedexception":       AuthFailed, // AWS
	"unrecognizedclientexception": AuthFailed, // AWS
	// Rate.
	"rate_limit_exceeded":  RateLimited, // OpenAI, Groq
	"rate_limit_error":     RateLimited, // Anthropic
	"resource_exhausted":   RateLimited, // Google status
	"ratelimitexceeded":    RateLimited, // Google reason
	"throttlingexception":  RateLimited, // AWS
	"token_quota_exceeded": RateLimited, // Cerebras
	"too_many_requests":    RateLimited,
	// Provider side.
	"overloaded_error":             ProviderError, // Anthropic (529, or in a 200 stream)
	"server_error":                 ProviderError, // OpenAI
	"internal_server_error":        ProviderError,
	"internal":                     ProviderError, // Google status
	"unavailable":                  ProviderError, // Google status
	"service_unavailable":          ProviderError,
	"internalserverexception":      ProviderError,  // AWS
	"serviceunavailableexception":  ProviderError,  // AWS
	"modelnotreadyexception":       ProviderError,  // AWS
	"modelstreamerrorexception":    ProviderError,  // AWS
	"timeout_error":                Timeout,        // Anthropic
	"deadline_exceeded":            Timeout,        // Google status
	"modeltimeoutexception":        Timeout,        // AWS
	"cancelled":                    Cancelled,      // Google status
	"content_filter":               ContentRefusal, // Azure
	"content_policy_violation":     ContentRefusal, // OpenAI
	"responsibleaipolicyviolation": ContentRefusal, // Azure innererror
}

// proseArm is one category's needles.
type proseArm struct {
	category Category
	needles  []needle
}

// proseArmSpecs are the prose arms in order. The first five lists are the origin's, in its order,
// with the Go renderings of the same causes and LiteLLM's anchors added; content refusal is ours.
var proseArmSpecs = []struct {
	category Category
	needles  []string
}{
	{RateLimited, []string{
		"rate limit", "rate_limit", "ratelimit", "too many requests", "quota exceeded",
		"resource_exhausted", "resource exhausted",
		// The origin also had overloaded_error here; it is Anthropic's 529, a provider fault,
		// and falls to the provider arm's "overloaded".
		"rate-limit", "throttlingexception", "request was throttled",
		"service tier capacity exceeded", // Mistral
		"temporarily out of capacity",    // Vertex
		"token_quota",                    // Cerebras and the OpenAI-like token_quota_reached
	}},
	{AuthFailed, []string{
		"unauthorized", "unauthenticated", "invalid api key", "invalid_api_key",
		"incorrect api key", "api key not valid", "permission denied", "permission_denied",
		"authentication_error", "invalid_grant", "forbidden",
		"invalid x-api-key", "api_key_invalid", "permission_error",
		"unable to locate credentials",                      // Bedrock
		"security token included in the request is invalid", // Bedrock
		"no auth credentials found",                         // OpenRouter
	}},
	{Timeout, []string{
		"etimedout", "timed out", "timeout", "deadline exceeded", "deadline_exceeded",
	}},
	{NetworkError, []string{
		"econnreset", "econnrefused", "enotfound", "epipe", "eai_again", "socket hang up",
		"fetch failed", "network error", "connection error", "terminated",
		// Go's renderings: syscall errnos, net/http, its bundled HTTP/2, crypto/tls.
		"connection reset", "connection refused", "broken pipe", "no such host",
		"unexpected eof", "server closed idle connection", "stream error: stream id",
		"server sent goaway", "tls: ", "x509: ",
	}},
	{ProviderError, []string{
		"internal error", "internal server error", "internal_server_error",
		"service unavailable", "bad gateway", "server_error", "overloaded",
		"model is overloaded", "try again later",
		"service_unavailable", "upstream connect error",
	}},
	{ContentRefusal, []string{
		"content_policy_violation", "responsibleaipolicyviolation", "content_filter",
		"content management policy", "content filtering policy",
		"rejected as a result of our safety system", "failed as a result of our safety system",
		"violating our usage policy", "the response was blocked",
	}},
}

// The needle lists of the other steps.
var (
	invalidNeedles = []string{
		"invalid_request_error", "invalid request", "bad request", "invalid argument",
		"invalid_argument", "invalid_request", "validationexception",
	}
	billingNeedles = []string{
		"insufficient_quota", "billing_not_active", "billing_hard_limit_reached",
		"insufficient credits", "insufficient balance", "insufficient_balance",
		"credit balance is too low", "payment required",
	}
	billingOutsideGoogleNeedles = []string{
		"exceeded your current quota", "check your plan and billing details",
	}
	perDayNeedles    = []string{"perday", "per_day"}
	googleMarkNeedle = []string{"googleapis.com", "resource_exhausted"}
)

// classifyLexicon is every needle the classifier reads, compiled once into one matcher, with the
// arm lists as needles of it. Read-only after package initialisation.
type classifyLexicon struct {
	m                    needleMatcher
	overflow             []overflowArm
	prose                []proseArm
	invalid              []needle
	billing              []needle
	billingOutsideGoogle []needle
	perDay, googleMarks  []needle
	quota, limitZero     needle
	recursion            needle
	tokensPer, limitWord needle
	requestedWord        needle
}

var classifyLex = newClassifyLexicon()

func newClassifyLexicon() *classifyLexicon {
	l := new(classifyLexicon)
	m := &l.m
	l.overflow = compileOverflowArms(m, overflowArmSpecs)
	l.tokensPer = m.intern("tokens per ")
	l.limitWord = m.intern("limit")
	l.requestedWord = m.intern("requested")
	l.recursion = m.intern("recursion limit")
	l.billing = m.interns(billingNeedles...)
	l.billingOutsideGoogle = m.interns(billingOutsideGoogleNeedles...)
	l.perDay = m.interns(perDayNeedles...)
	l.quota = m.intern("quota")
	l.limitZero = m.intern("limit: 0,")
	l.googleMarks = m.interns(googleMarkNeedle...)
	for _, s := range proseArmSpecs {
		l.prose = append(l.prose, proseArm{category: s.category, needles: m.interns(s.needles...)})
	}
	l.invalid = m.interns(invalidNeedles...)
	m.index = nil // building is over
	return l
}
