package termination

import (
	"cmp"
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
	set                     textScan // what the text holds, once it is read
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
		ev.typed(i)
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

// statusDigits is "100101102…599": every HTTP status's decimal text, three bytes each, so
// statusText can slice it instead of allocating. Read-only after package initialisation.
var statusDigits = func() string {
	b := make([]byte, 0, 3*500)
	for n := 100; n < 600; n++ {
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}()

// statusText is the decimal text of an HTTP status, "" for zero, without allocating for
// the statuses the chain can hold ([100, 600)).
func statusText(n int) string {
	switch {
	case n == 0:
		return ""
	case n >= 100 && n < 600:
		i := 3 * (n - 100)
		return statusDigits[i : i+3]
	}
	return strconv.Itoa(n)
}

// typed records what error i of the chain is, by its type or identity.
func (ev *evidence) typed(i int) {
	e := ev.chain.nodes[i]
	id := sentinelOf(e)
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
	case id.is(ErrContextOverflow):
		ev.overflowTyped = true
	case id.is(context.Canceled):
		setFirst(&ev.cancelled, "context.Canceled")
	case id.is(context.DeadlineExceeded):
		setFirst(&ev.timeout, "context.DeadlineExceeded")
	case e == os.ErrDeadlineExceeded:
		setFirst(&ev.timeout, "os.ErrDeadlineExceeded")
	case id.is(io.ErrUnexpectedEOF):
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
	// The HTTP client's EOF: the server closed the connection before answering.
	if id.is(io.EOF) && ev.chain.under(i, isURLError) {
		setFirst(&ev.network, "io.EOF")
	}
}

func isURLError(e error) bool {
	_, ok := e.(*url.Error)
	return ok
}

// sentinel is one error of the chain, ready for the identity tests of typed: its Is method, if
// it has one, is looked up once rather than for every target.
type sentinel struct {
	e      error
	method interface{ Is(error) bool } // nil when e has no Is method
}

func sentinelOf(e error) sentinel {
	x, _ := e.(interface{ Is(error) bool })
	return sentinel{e, x}
}

// is is one step of errors.Is: the error is target, or says it is. The chain walk supplies the
// unwrapping, bounded.
func (s sentinel) is(target error) bool {
	return s.e == target || (s.method != nil && s.method.Is(target))
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
	matched := false
	eachOverflowArm(text, &ev.set, func(*overflowArm) bool {
		matched = true
		return false
	})
	return matched
}

// classify runs steps 1 to 8 of the order [Classify] documents on the text readText returned.
func (ev *evidence) classify(text []byte) Classification {
	p := ev.provider
	status := statusText(ev.status)
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
	if d := cmp.Or(ev.timeout, ev.timeoutGeneric); d != "" {
		return Classification{Category: Timeout, Provider: p, Detail: d}
	}
	if ev.name == "APIConnectionError" {
		return named(NetworkError, "")
	}
	if d := cmp.Or(ev.network, ev.networkGeneric); d != "" {
		return Classification{Category: NetworkError, Provider: p, Detail: d}
	}

	// 3. Quota or billing exhaustion.
	codes := ev.readCodes()
	if d, ok := ev.billing(status, codes.billing); ok {
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
	if codes.cat != "" {
		return Classification{Category: codes.cat, Provider: p, Detail: codes.code}
	}

	// 6. Prose arms.
	for i := range classifyLex.prose {
		if ev.set.intersects(&classifyLex.prose[i].needles) {
			return Classification{Category: classifyLex.prose[i].category, Provider: p}
		}
	}

	// 7. The 400 bucket.
	if ev.status == 400 || ev.set.intersects(&classifyLex.invalid) {
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
// decide. Detail is the code when a structured one decided, else the status. code is the
// chain's first billing code (readCodes), "" when it has none.
func (ev *evidence) billing(status, code string) (string, bool) {
	switch {
	case code != "":
		return code, true
	case ev.status == 402:
		return status, true
	case ev.set.intersects(&classifyLex.billing):
		return status, true
	case !ev.google() && ev.set.intersects(&classifyLex.billingOutsideGoogle):
		return status, true
	case ev.set.has(classifyLex.quota) && (ev.set.intersects(&classifyLex.perDay) || ev.set.has(classifyLex.limitZero)):
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
	return ev.set.intersects(&classifyLex.googleMarks)
}

// chainCodes is what the chain's structured codes say, read in one pass for steps 3 and 5.
type chainCodes struct {
	billing string   // the first code in billingCodes
	code    string   // the first code in codeCategories, unless a billing code comes first
	cat     Category // what codeCategories says of code
}

// readCodes reads the chain's structured codes (eachCode) in order. The pass stops at the first
// billing code: step 3 then decides, and step 5 is never reached.
func (ev *evidence) readCodes() chainCodes {
	var cc chainCodes
	ev.eachCode(func(c string) bool {
		e := codeTable.lookup(c)
		if e.billing {
			cc.billing = c
			return false
		}
		if e.cat != "" && cc.cat == "" {
			cc.code, cc.cat = c, e.cat
		}
		return true
	})
	return cc
}

// eachCode calls yield with every type, status and code string the chain's APIErrors carry,
// their own fields first, then their bodies', until yield returns false. A body code equal to
// its APIError's Type or Code, already yielded, is passed over: ParseErrorBody copies one of
// them there, and a second look could only repeat the first one's answer.
func (ev *evidence) eachCode(yield func(string) bool) {
	for i := range ev.napi {
		e := ev.apis[i]
		if e.Type != "" && !yield(e.Type) {
			return
		}
		if e.Code != "" && !yield(e.Code) {
			return
		}
		if !ev.bodies[i].json {
			continue
		}
		for _, c := range ev.bodies[i].codes() {
			if c != "" && c != e.Type && c != e.Code && !yield(c) {
				return
			}
		}
	}
}

// codeEntry is what the code table knows of one structured code.
type codeEntry struct {
	billing bool     // in billingCodes
	cat     Category // from codeCategories, "" when it is not there
}

// codeIndex is billingCodes and codeCategories as one table, so each code is looked up once.
// lengths has bit n set when some key is n bytes long, which turns most codes that are in
// neither map ("tokens", "invalid_request_error") away before hashing. Read-only after package
// initialisation.
type codeIndex struct {
	m       map[string]codeEntry
	lengths uint64
}

var codeTable = newCodeIndex()

func newCodeIndex() *codeIndex {
	x := &codeIndex{m: make(map[string]codeEntry, len(billingCodes)+len(codeCategories))}
	add := func(k string, f func(*codeEntry)) {
		if len(k) == 0 || len(k) >= 64 || strings.ToLower(k) != k {
			panic("termination: bad code key " + k)
		}
		e := x.m[k]
		f(&e)
		x.m[k] = e
		x.lengths |= 1 << len(k)
	}
	for k := range billingCodes {
		add(k, func(e *codeEntry) { e.billing = true })
	}
	for k, cat := range codeCategories {
		add(k, func(e *codeEntry) { e.cat = cat })
	}
	return x
}

// lookup looks code up case-insensitively (ASCII), without allocating; the zero entry when it
// is in neither map.
func (x *codeIndex) lookup(code string) codeEntry {
	var buf [64]byte
	if len(code) >= len(buf) || x.lengths&(1<<len(code)) == 0 {
		return codeEntry{}
	}
	for i := range len(code) {
		c := code[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return x.m[string(buf[:len(code)])]
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
	needles  needleSet
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
	overflowNeedles      needleSet // every needle some overflow arm requires
	prose                []proseArm
	invalid              needleSet
	billing              needleSet
	billingOutsideGoogle needleSet
	perDay, googleMarks  needleSet
	quota, limitZero     needle
	recursion            needle
	tokensPer, limitWord needle
	requestedWord        needle
	limitCount           int // the scan's counts after limitWord and requestedWord
	requestedCount       int
}

var classifyLex = newClassifyLexicon()

func newClassifyLexicon() *classifyLexicon {
	l := new(classifyLexicon)
	m := &l.m
	l.overflow, l.overflowNeedles = compileOverflowArms(m, overflowArmSpecs)
	l.tokensPer = m.intern("tokens per ")
	l.limitWord = m.intern("limit")
	l.requestedWord = m.intern("requested")
	l.limitCount = m.countAfter(l.limitWord)
	l.requestedCount = m.countAfter(l.requestedWord)
	l.recursion = m.intern("recursion limit")
	l.billing = m.internSet(billingNeedles...)
	l.billingOutsideGoogle = m.internSet(billingOutsideGoogleNeedles...)
	l.perDay = m.internSet(perDayNeedles...)
	l.quota = m.intern("quota")
	l.limitZero = m.intern("limit: 0,")
	l.googleMarks = m.internSet(googleMarkNeedle...)
	for _, s := range proseArmSpecs {
		l.prose = append(l.prose, proseArm{category: s.category, needles: m.internSet(s.needles...)})
	}
	l.invalid = m.internSet(invalidNeedles...)
	m.index = nil // building is over
	return l
}
