package termination

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Classify is the exception feeder: it classifies an error into the taxonomy. It never panics
// and always returns a valid category; nil and an error nothing places are [Unknown], a
// recorded fact rather than a guess.
//
// It reads evidence in this order, structure before text:
//
//  1. A reason committed on the chain ([Attach], [ReasonOf]) is returned as it is: the site
//     that attached it watched the failure happen.
//  2. Typed Go errors, by type or identity, never by their text: [ErrContextOverflow];
//     context.Canceled (cancelled); context.DeadlineExceeded, os.ErrDeadlineExceeded, a
//     net.Error whose Timeout() says so, ETIMEDOUT (timeout); a certificate the TLS stack would
//     not trust, x509 and tls.CertificateVerificationError (auth_failed: no retry fixes a trust
//     configuration, a person does); ECONNRESET, ECONNREFUSED, EPIPE and kin, *net.DNSError,
//     *net.OpError, TLS record and alert errors, io.ErrUnexpectedEOF, an EOF inside a
//     *url.Error (network_error).
//  3. The provider's word: the first [*APIError] in the chain, read by [providerEvidence]:
//     its status, error class name, type and code, then its message and body as features.
//
// The text of any other error in the chain (a test name, a file name, a path, a JSON decoder's
// field name) is never read: only a provider's message and body are prose here. A Go error
// that carries provider text must be an [*APIError] (see [ParseErrorBody]).
func Classify(err error) (c Classification) {
	if err == nil {
		return Classification{Category: Unknown}
	}
	defer func() {
		// An Unwrap, Is or As method of someone else's error type can panic (a typed nil), and
		// a feeder must not turn one failure into another.
		if recover() != nil {
			c = Classification{Category: Unknown}
		}
	}()
	if r, ok := ReasonOf(err); ok {
		return committedClassification(r)
	}
	api, _ := errors.AsType[*APIError](err) // nil for a typed nil as well
	provider := ""
	if api != nil {
		provider = api.Provider
	}
	if cat, detail := typed(err); cat != "" {
		return Classification{Category: cat, Provider: provider, Detail: detail}
	}
	if api == nil {
		return Classification{Category: Unknown}
	}
	return providerEvidence(api)
}

// committedClassification is a committed reason as a classification. A category outside the
// vocabulary is recorded as [Unknown] with the string kept in Detail, as [New] does.
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

// typed returns the category the chain's Go types show, with the type as detail; "" when none
// does.
func typed(err error) (Category, string) {
	switch {
	case errors.Is(err, ErrContextOverflow):
		return ContextOverflow, "termination.ErrContextOverflow"
	case errors.Is(err, context.Canceled):
		return Cancelled, "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout, "context.DeadlineExceeded"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return Timeout, "os.ErrDeadlineExceeded"
	}
	if e, ok := errors.AsType[syscall.Errno](err); ok {
		if e == syscall.ETIMEDOUT {
			return Timeout, "syscall.ETIMEDOUT"
		}
		if name := transportErrnos[e]; name != "" {
			return NetworkError, "syscall." + name
		}
	}
	netErr, isNetErr := errors.AsType[net.Error](err)
	switch {
	case has[x509.UnknownAuthorityError](err):
		return AuthFailed, "x509.UnknownAuthorityError"
	case has[x509.HostnameError](err):
		return AuthFailed, "x509.HostnameError"
	case has[x509.CertificateInvalidError](err):
		return AuthFailed, "x509.CertificateInvalidError"
	case has[*tls.CertificateVerificationError](err):
		return AuthFailed, "*tls.CertificateVerificationError"
	case isNetErr && netErr.Timeout():
		return Timeout, "Timeout()"
	case has[*net.DNSError](err):
		return NetworkError, "*net.DNSError"
	case has[tls.RecordHeaderError](err):
		return NetworkError, "tls.RecordHeaderError"
	case has[tls.AlertError](err):
		return NetworkError, "tls.AlertError"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return NetworkError, "io.ErrUnexpectedEOF"
	case has[*url.Error](err) && errors.Is(err, io.EOF):
		return NetworkError, "io.EOF"
	case has[*net.OpError](err):
		return NetworkError, "*net.OpError"
	}
	return "", ""
}

// has reports whether err's chain holds an error of type T.
func has[T error](err error) bool {
	_, ok := errors.AsType[T](err)
	return ok
}

// transportErrnos are the errnos of a connection that failed or broke, by name.
var transportErrnos = map[syscall.Errno]string{
	syscall.ECONNRESET: "ECONNRESET", syscall.ECONNREFUSED: "ECONNREFUSED", syscall.ECONNABORTED: "ECONNABORTED",
	syscall.EPIPE: "EPIPE", syscall.ENETRESET: "ENETRESET", syscall.ENETUNREACH: "ENETUNREACH",
	syscall.EHOSTUNREACH: "EHOSTUNREACH", syscall.ENETDOWN: "ENETDOWN",
}

// providerEvidence classifies a provider's error. Status, class name, type and code come first;
// the message and body are read as features ([features]) and combined by one rule:
//
//  1. A LangChain class name that is a category of its own: GraphInterrupt (suspended),
//     ToolException (tool_error), GraphRecursionError or a "recursion limit" (recursion_limit).
//  2. A 413, or a stated request larger than the stated limit ("Limit 6000, Requested 20000",
//     "Requested 319487 tokens, max 300000"): context_overflow.
//  3. Billing wording, or 402: auth_failed (remedy fix-credentials: a person pays or changes
//     plan; a back-off would wait for nothing). Quota exhaustion arrives as 429, 403 and 400.
//  4. Overflow wording: context_overflow. Before the status, because an overflow arrives as
//     a 400, a 413 or (a request larger than a per-minute limit) a 429, and reducing the
//     context is the only remedy that works.
//  5. Filter wording, or a body whose own stop metadata is a refusal: content_refusal. Safety
//     blocks arrive as 400 and 403. A reply (not an error) with no status above 399 that
//     carries no text and no tool call: empty_response.
//  6. Abort wording (not a connection's): cancelled; wording of a model that does not exist
//     ("model 'x' not found", "Incorrect model ID"): invalid_request; both whatever the
//     status (a gateway sends a wrong model id as a 503).
//  7. A decisive status (the response's, the body's, one an SDK wrote into its message,
//     "Error code: 429", or the status whose reason phrase the body's whole message is, a
//     gateway's 502 saying "Bad Request"): 429 rate_limited; 401, 403, 407 auth_failed; 499 (client closed
//     request) cancelled; 408, 504, 524, 598 timeout; 404 invalid_request (the model or the
//     route does not exist; no retry makes it exist).
//  8. Timeout wording: timeout, whatever the status; a 4xx whose text names the serving
//     side's state (overloaded, degraded, still loading, not ready): provider_error.
//  9. A status bucket: 5xx (529 included) rate_limited on rate wording, else provider_error,
//     even when its text speaks of the transport (a gateway's 503 "upstream connect error" is
//     the provider's fault); 4xx auth_failed on credential wording, else invalid_request.
//  10. With no status, wording in this order: rate (when no transport word is there), a
//     stream cut short, certificate trust
//     (auth_failed), credentials (auth_failed), transport (network_error), rate, a model that
//     does not exist (invalid_request), empty output (empty_response), output truncated, a
//     provider fault (provider_error), an invalid request. Otherwise unknown.
//
// Words that only name a thing ("input validation error", "rate limit usage", "context
// deadline exceeded") and the words of a hedge's guess ("check the feedback to see if the
// prompt was blocked", "you may need a larger context") are no evidence for the overflow,
// filter and rate rules ([features.over]).
//
// Detail is the status when there is one, else the class name.
func providerEvidence(a *APIError) Classification {
	if cause, ok := lastAttempt(a.Message); ok {
		// A retry wrapper's "Deadline of 60.0s exceeded …, last exception: 503 … invalid_grant":
		// the attempts failed on the last exception, and the deadline only stopped the retrying.
		inner := *a
		inner.Message, inner.Status, inner.Name, inner.Body = cause, 0, "", ""
		if c := providerEvidence(&inner); c.Category != Unknown {
			return c
		}
	}
	b := a.body()
	if !b.found() && strings.ContainsRune(a.Message, '{') {
		// No body but a message holding one: read the body the message quotes.
		if mb := ReadErrorBody(a.Message); mb.object {
			// The message's objects are read into b only when text of their own came out of
			// them (not only the message again).
			b, b.inMessage = mb, slices.ContainsFunc(mb.texts, func(t string) bool { return t != a.Message })
		}
	}
	status := a.Status
	if status < 100 || status >= 600 {
		status = 0 // no HTTP status: neither its bucket nor its detail
	}
	if status < 400 && b.Status >= 400 {
		status = b.Status
	}
	if n := typeStatus[strings.ToLower(cmp.Or(a.Type, b.Type))]; n != 0 && (a.Status < 400 || a.Status >= 600) {
		// A type that documents its status (Bedrock's serviceUnavailableException is a 503)
		// beats a status only a wrapper's rendering states.
		status = n
	}
	textStatus := false // the status is one printed in the message
	if status < 400 {
		if n := statusInText(a.Message); n != 0 {
			status, textStatus = n, true
		}
	}
	if n := phraseStatus(b.Message); n >= 400 && n/100 != status/100 {
		status = n // a gateway's 502 whose body says only "Bad Request": the upstream's status
	}
	f := readFeatures(a, &b)
	if textStatus && (f.framingBroken() || f.proxyRefused()) {
		// aiohttp's "TransferEncodingError: 400, message=…": its parser's code; "Tunnel
		// connection failed: 400 Bad Request": the proxy's answer. Neither is the API's status.
		status = 0
	}
	if status == 0 {
		status = classStatus(&f) // "Error type: NotFoundError": the class an SDK names for a status
	}
	printed := printedStop(a.Body, a.Message)
	var bstop Category // what a reply's own stop metadata says (a Gemini block, a MAX_TOKENS finish)
	if !b.object {
		bstop = bodyStop(a.Body)
	}
	c := Classification{Provider: a.Provider, RetryAfter: cmp.Or(a.RetryAfter, b.RetryAfter)}
	if c.RetryAfter == 0 {
		c.RetryAfter = retryAfterIn(a.Message) // "Try again in 60 seconds" in an SDK's message
	}
	// The detail is the status, else the class name, as the caller gave them.
	say := func(cat Category) Classification {
		c.Category, c.Detail = cat, a.Name
		if status >= 100 && status < 600 {
			c.Detail = strconv.Itoa(status)
		}
		return c
	}
	switch a.Name {
	case "ContextOverflowError":
		return say(ContextOverflow)
	case "GraphInterrupt":
		return say(Suspended)
	case "ToolException":
		return say(ToolError)
	case "GraphRecursionError":
		return say(RecursionLimit)
	}
	switch {
	case f.recursion():
		return say(RecursionLimit)
	case f.any(kTruncated) && f.word("finish reason length", "length finish reason"):
		return say(OutputTruncated) // a printed finish_reason='length': the cap, whatever else the text lists ("no text, tool call, or refusal")
	case f.any(kRare) && f.word("finish reason error"):
		return say(ProviderError) // "a mid-stream failure (finish_reason 'error')": the provider's own finish
	case f.any(kRare) && f.word("error executing tool", "tool execution failed", "tool execution error", "failed to execute tool", "tool call failed",
		"error executing mcp tool", "error invoking mcp tool", "error calling tool", "failed to call tool", "mcp error", "tool server error",
		"tool use was rejected"):
		return say(ToolError) // "mcp tool execution failed", "Error executing tool run_shell_command": a tool failed the turn
	case f.any(kRare) && f.followed([]string{"command"}, 2, []string{"timed", "timeout", "exceeded"}, nil):
		return say(ToolError) // "Command timed out after 30000ms", "command exceeded 3600000ms and was terminated": a tool's command, not the model call
	case f.any(kRare) && f.word("mcp tool") && f.over&kExceed != 0:
		return say(ToolError) // "MCP tool … response (36382 tokens) exceeds maximum allowed tokens": the tool's result over the harness's cap, not the model's window
	case f.any(kRare) && f.word("unexpected model behavior") && f.word("max retries count"):
		return say(ToolError) // pydantic-ai's "exceeded max retries count": a tool kept asking for a retry until its budget was spent
	case f.any(kRare) && f.word("usage limit reached", "usage limit exceeded") && f.word("reset", "resets") && !f.any(kShortTime):
		return say(AuthFailed) // "Claude usage limit reached. Your limit will reset at 3pm": a plan's allowance, hours away
	case f.any(kRare) && f.word("terminal event response failed", "ended with response failed"):
		return say(ProviderError) // a Responses stream that ended on response.failed: the service failed it
	case f.any(kRare) && f.word("terminal event response incomplete", "ended with response incomplete"):
		return say(Unknown) // response.incomplete without its details: a cap or a filter, not which
	case f.any(kRare) && f.word("loop detected", "detected a loop", "loop was detected", "stuck in a loop") && !f.word("redirect", "redirects"):
		return say(ToolLoopGuard) // a harness's own loop guard ("Loop detected, stopping execution")
	case status == 413 || f.requestExceedsLimit():
		return say(ContextOverflow)
	case status == 402 || f.billing(a.Provider, b.quotas) || c.RetryAfter >= time.Hour && f.quotaResets():
		return say(AuthFailed) // "Your quota will reset after 8h44m7s": a budget spent, not a rate
	case f.raisesOutputCap() && !f.requestExceedsLimit():
		return say(OutputTruncated) // "Increase the `max_tokens` model setting": the reply ran out of room
	case f.overflow(status):
		return say(ContextOverflow)
	case f.barred() || f.credentialsRejected():
		return say(AuthFailed) // "403 Access terminated. Review our Community Guidelines": the account, not this content
	case status < 400 && printedEmptyReply(a.Message):
		return say(EmptyResponse) // a reply an SDK printed, with nothing in it (its field refusal=None is no refusal)
	case f.filter() || bstop == ContentRefusal || printed == ContentRefusal:
		return say(ContentRefusal)
	case status < 400 && bstop == OutputTruncated:
		return say(OutputTruncated) // a reply with no text whose own finish is MAX_TOKENS ran out of room
	case status < 400 && !b.object && emptyReply(a.Body):
		return say(EmptyResponse)
	case f.abort() && (status < 400 || status >= 499 || status == 408 || f.callerLeft()):
		// A provider's 4xx is the failure; "aborting request" after it is the client's reaction.
		return say(Cancelled)
	case f.noModel() && status != 401:
		// The text names the failure, whatever the status (a gateway sends a wrong model id as
		// a 503); but a 401 is always the credentials' ("401 Invalid model key").
		return say(InvalidRequest)
	case (f.over&kState != 0 || f.servingGone()) && !codeBeatsState(a, &b) && !(f.any(kShortTime) && f.rate()):
		// "429 … The engine is currently overloaded": the serving side's state, whatever the
		// status; but a limit stated per minute ("High demand … limited to 1 requests per
		// minute") is the caller's rate.
		return say(ProviderError)
	case f.modelGaveNothing() && !f.timeout():
		return say(EmptyResponse) // "502 Agent produced no response": the text names the failure
	}
	switch status {
	case 429:
		return say(RateLimited)
	case 401, 403, 407:
		return say(AuthFailed)
	case 499:
		return say(Cancelled)
	case 408, 504, 524, 598:
		return say(Timeout)
	case 404, 501:
		return say(InvalidRequest) // 501: the server does not do what was asked; no retry makes it
	}
	switch {
	case f.timeout() && (!f.streamCut() || f.waitedForNothing() || f.causedByTimer() || timerCode(a, &b)) && !f.rate() && !f.nameLookup():
		return say(Timeout) // a timeout waiting on a rate limiter ("rate limit for key") is the limit's
	case textStatus && status >= 500 && f.over&kCut != 0:
		return say(StreamCut) // "Error: 500 Upstream stream ended before terminal chunk": the cut the text reports, under a status only printed before it
	case status >= 500 && f.rate():
		return say(RateLimited)
	case status >= 500 && f.word("unimplemented", "not implemented", "not yet implemented"):
		return say(InvalidRequest) // gRPC's Unimplemented behind a 500: the server does not do what was asked
	case status >= 500:
		return say(ProviderError)
	case status >= 400 && f.validationDetail():
		return say(InvalidRequest) // a validator's report of the field that was wrong beats a client's gloss
	case status >= 400 && status != 424 && f.credentials():
		return say(AuthFailed)
	case status >= 400 && status != 424:
		return say(InvalidRequest) // 424 Failed Dependency says an upstream failed, not how: the text decides
	case f.rate() && (!f.transport() || f.streamCut()):
		return say(RateLimited) // a stream that broke off on a rate limit is the limit's
	case f.transport() && f.word("200 ok") && f.word("reset", "closed", "eof", "broken pipe") && !f.empty() && !f.abort():
		// "HTTP/1.1 200 OK" … "Connection reset by peer": the reply had begun when the
		// connection broke, so its body was cut.
		return say(StreamCut)
	case f.streamCut() && f.word("server had an error", "error occurred while processing your request"):
		return say(ProviderError) // "stream disconnected before completion: An error occurred while processing your request": the cut's stated cause is the server's failure
	case f.streamCut() && !f.rate():
		return say(StreamCut) // "stream disconnected before completion: Rate limit is exceeded" is the limit's
	case f.untrusted():
		return say(AuthFailed)
	case f.credentials():
		return say(AuthFailed)
	case f.undecodable() && !f.emptyWords() && !f.any(kTruncated): // "an empty or malformed response" names an empty one; "JSONDecodeError: Unterminated string" a cut-off one
		return say(Unknown) // a reply the client could not decode: its banner ("Network error:") is no evidence
	case f.empty() && f.word("without receiving any", "without sending any"):
		return say(EmptyResponse) // "Connection closed without receiving any events": nothing came before it closed
	case f.transport():
		return say(NetworkError)
	case f.rate():
		return say(RateLimited)
	case f.noModel():
		return say(InvalidRequest)
	case f.empty() && f.truncated() && f.word("due to", "because of"):
		return say(OutputTruncated) // "ended due to token limit exhaustion (MAX_TOKENS) with empty response text": the cap's
	case f.empty() && f.any(kInput) && f.followed([]string{"no"}, 7, []string{"provided", "given", "supplied"}, nil):
		// "No message history, user prompt, or instructions provided": the request lacked its
		// input; no reply came empty ("No content provided" is the reply's)
		return say(InvalidRequest)
	case f.empty():
		return say(EmptyResponse)
	case f.truncated() || printed == OutputTruncated:
		return say(OutputTruncated)
	case f.word("invalid request error") && !f.any(kState|kResource):
		// "Upstream request failed: [invalid_request_error] …": the upstream's own type says
		// the request was refused, whatever the gateway's word for its failure.
		return say(InvalidRequest)
	case f.providerFault():
		return say(ProviderError)
	case f.invalid() && !(f.unparsable() && f.any(kReply)):
		// "No object generated: response did not match schema … Type validation failed": the
		// reply failed the caller's schema, which says nothing of the request.
		return say(InvalidRequest)
	case c.RetryAfter > 0 && status == 0:
		return say(RateLimited) // "Try again in 60 seconds" and nothing else: a limiter's wait
	}
	return say(Unknown)
}

// codeBeatsState reports whether the error's own code or type names a rate limit or an invalid
// request ("RATE_LIMITED", "InvalidEndpoint.ClosedEndpoint"): typed evidence the serving
// side's state in the prose does not beat.
func codeBeatsState(a *APIError, b *ErrorBody) bool {
	for _, c := range [...]string{a.Code, a.Type, b.Code, b.Type} {
		c = strings.ToLower(c)
		if c == "invalid_request_error" {
			continue // OpenAI's and Anthropic's type for every 4xx: a class, not what failed
		}
		if strings.Contains(c, "rate") || strings.Contains(c, "invalid") {
			return true
		}
	}
	return false
}

// timerCode reports whether the error's own code names a timer (undici's UND_ERR_BODY_TIMEOUT):
// a reply that code broke off ("terminated") is the timeout's.
func timerCode(a *APIError, b *ErrorBody) bool {
	for _, c := range [...]string{a.Code, b.Code} {
		if strings.Contains(strings.ToLower(c), "timeout") {
			return true
		}
	}
	return false
}

// classStatus is the status an SDK's exception class, named in the text, stands for
// (NotFoundError is the 404 of the OpenAI SDKs and LiteLLM); zero when it names none.
func classStatus(f *features) int {
	switch {
	case !f.word("error"):
		return 0
	case f.word("not found error"):
		return 404
	case f.word("bad request error"):
		return 400
	case f.word("unprocessable entity error"):
		return 422
	}
	return 0
}

// lastAttempt returns the last exception a retry wrapper reports ("RetryError: Deadline of
// 60.0s exceeded while calling target function, last exception: …"); ok is false when there is
// none.
func lastAttempt(msg string) (cause string, ok bool) {
	i := strings.LastIndex(msg, "ast e") // one pass for both leads
	if i < 1 || msg[i-1] != 'l' {
		return "", false
	}
	rest := msg[i+len("ast e"):]
	for _, lead := range [...]string{"xception:", "rror:"} {
		if after, ok := strings.CutPrefix(rest, lead); ok {
			cause = strings.TrimSpace(after)
			return cause, cause != ""
		}
	}
	return "", false
}

// typeStatus is the HTTP status of the error types whose documentation gives one: Bedrock's
// exceptions and Anthropic's error types, lower-cased.
var typeStatus = map[string]int{
	"throttlingexception": 429, "serviceunavailableexception": 503, "internalserverexception": 500,
	"modeltimeoutexception": 408, "modelnotreadyexception": 429, "validationexception": 400,
	"accessdeniedexception": 403, "resourcenotfoundexception": 404,
	"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500, "authentication_error": 401,
	"permission_error": 403, "not_found_error": 404, "request_too_large": 413, "timeout_error": 504,
}

// bodyStop is what the body's own stop metadata says, when it is a response that carries one;
// "" otherwise.
func bodyStop(body string) Category {
	if !strings.HasPrefix(strings.TrimSpace(body), "{") {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return ""
	}
	if c, ok := ClassifyStop("", v); ok {
		return c.Category
	}
	return ""
}

// printedStop is what a stop token printed in text means: a response rendered as protobuf text
// or logged ("finish_reason: BLOCKLIST", "finishReason=MAX_TOKENS", "stop_reason: max_tokens"),
// or named in a sentence ("finished due to length").
// Empty when the texts print none.
func printedStop(texts ...string) Category {
	for _, t := range texts {
		if !strings.Contains(t, "eason") && !strings.Contains(t, "EASON") && !strings.Contains(t, "due to") {
			continue
		}
		lower := strings.ToLower(t)
		for _, key := range []string{"finish_reason", "finishreason", "finish reason", "stop_reason", "stopreason", "stop reason", "finished due to", "stopped due to"} {
			i := strings.Index(lower, key)
			if i < 0 {
				continue
			}
			rest := strings.TrimLeft(lower[i+len(key):], ` "':=`)
			end := strings.IndexFunc(rest, func(r rune) bool {
				return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
			})
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				continue
			}
			if c, ok := ClassifyStop("", rest[:end]); ok {
				return c.Category
			}
		}
	}
	return ""
}

// printedEmptyReply reports whether msg prints an SDK's reply object that carries nothing:
// openai-python's ChatCompletionMessage(content=None, refusal=None, …, tool_calls=None), or one
// whose content is an empty string, or google-genai's Candidate(content=Content(role='model'),
// …) with no parts.
func printedEmptyReply(msg string) bool {
	if i := strings.Index(msg, "ChatCompletionMessage("); i >= 0 {
		m := msg[i:]
		return (strings.Contains(m, "content=None") || strings.Contains(m, "content=''")) &&
			!strings.Contains(m, "refusal='") && !strings.Contains(m, `refusal="`) &&
			!strings.Contains(m, "tool_calls=[") && !strings.Contains(m, "function_call=FunctionCall(")
	}
	if i := strings.Index(msg, "content=Content("); i >= 0 && strings.Contains(msg[:i], "Candidate(") {
		m := msg[i+len("content=Content("):]
		if j := strings.IndexByte(m, ')'); j >= 0 {
			m = m[:j]
		}
		return !strings.Contains(m, "parts=")
	}
	return false
}

// emptyReply reports whether the body is a reply rather than an error, and one that carries
// nothing: no text and no tool call in any choice (the OpenAI family), in the message (Ollama's
// chat) or in the response (Ollama's generate), no content block (Anthropic), no candidate with
// a part (Gemini), an empty text or answer (Cohere's chat, agents' and others' one-field
// replies). A shape it does not know is not empty.
func emptyReply(body string) bool {
	if !strings.HasPrefix(strings.TrimSpace(body), "{") {
		return false
	}
	var r struct {
		Choices    *[]replyMessage `json:"choices"`
		Message    *replyMessage   `json:"message"`
		Object     string          `json:"object"`
		Response   *string         `json:"response"`
		Text       *string         `json:"text"`
		Answer     *string         `json:"answer"`
		Done       bool            `json:"done"`
		Type       string          `json:"type"`
		Content    []any           `json:"content"`
		Candidates []struct {
			Content struct {
				Parts []any `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if json.Unmarshal([]byte(body), &r) != nil {
		return false
	}
	switch {
	case strings.HasSuffix(r.Object, ".chunk"):
		return false // one chunk of a stream, not the finished reply
	case r.Choices != nil && len(*r.Choices) == 0:
		return true // "choices": [] and nothing else: no answer at all
	case r.Choices != nil:
		for _, c := range *r.Choices {
			if !c.empty() {
				return false
			}
		}
		return true
	case r.Message != nil:
		return r.Done && r.Message.empty()
	case r.Response != nil:
		return r.Done && strings.TrimSpace(*r.Response) == ""
	case r.Type == "message":
		return len(r.Content) == 0
	case r.Text != nil:
		return strings.TrimSpace(*r.Text) == ""
	case r.Answer != nil:
		return strings.TrimSpace(*r.Answer) == "" // an agent's {"answer": "", "stoppedReason": "final"}
	case len(r.Candidates) > 0:
		for _, c := range r.Candidates {
			if len(c.Content.Parts) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// replyMessage is a choice of the OpenAI family (its message, or a streamed delta) or Ollama's
// message: what a reply can carry.
type replyMessage struct {
	Message      *replyMessage `json:"message"`
	Delta        *replyMessage `json:"delta"`
	Text         string        `json:"text"`
	Content      any           `json:"content"`
	ToolCalls    []any         `json:"tool_calls"`
	FunctionCall any           `json:"function_call"`
}

// empty reports whether the message carries no text and no tool call.
func (m *replyMessage) empty() bool {
	if m.Message != nil && !m.Message.empty() || m.Delta != nil && !m.Delta.empty() {
		return false
	}
	if strings.TrimSpace(m.Text) != "" || len(m.ToolCalls) > 0 || m.FunctionCall != nil {
		return false
	}
	switch c := m.Content.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(c) == ""
	case []any:
		return len(c) == 0
	}
	return false
}

// statusInText reads an HTTP status an SDK or gateway wrote into its message: a 4xx or 5xx
// number after "status", "code", "error" or "HTTP" ("Error code: 402 - …", "HTTP/1.1 502"),
// else one followed by its reason phrase ("502 Bad Gateway", "429 Too Many Requests"). Zero
// when none.
func statusInText(msg string) int {
	if msg == "" {
		return 0
	}
	var w wordWriter
	w.add(msg)
	ws := strings.Fields(w.b.String())
	for i := 1; i < len(ws); i++ {
		n := statusWord(ws[i])
		if n == 0 {
			continue
		}
		prev := ws[i-1]
		if i >= 3 && ws[i-3] == "http" && isNumber(ws[i-2]) && isNumber(prev) {
			return n // HTTP/1.1 502
		}
		switch prev {
		case "status", "code", "error", "http", "rejected", "returned", "failed":
			return n
		}
		if i+1 < len(ws) && (ws[i+1] == "doctype" || ws[i+1] == "html") {
			return n // "504 <!DOCTYPE html …" (the bracket is no word): a status, then the page that came with it
		}
	}
	for i, word := range ws {
		n := statusWord(word)
		if n == 0 {
			continue
		}
		t := statusTexts[n]
		if t == "" {
			continue
		}
		// The reason phrase right after the number, or after one word of its own ("404 page
		// not found", Go's default answer).
		for skip := 1; skip <= 2; skip++ {
			if strings.HasPrefix(strings.Join(ws[min(i+skip, len(ws)):min(i+skip+4, len(ws))], " ")+" ", t+" ") {
				return n
			}
		}
	}
	return 0
}

// phraseStatus is the status whose reason phrase the whole message is ("Bad Request"); zero
// when it is none.
func phraseStatus(msg string) int {
	if msg == "" || len(msg) > 40 {
		return 0
	}
	var w wordWriter
	w.add(msg)
	words := strings.TrimSuffix(strings.TrimSpace(w.b.String()), " .")
	for n, t := range statusTexts {
		if t == words {
			return n
		}
	}
	return 0
}

// statusWord is a word as a 4xx or 5xx status; zero when it is not one.
func statusWord(w string) int {
	if len(w) != 3 || (w[0] != '4' && w[0] != '5') || !isNumber(w) {
		return 0
	}
	n, _ := strconv.Atoi(w)
	return n
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// statusTexts are the reason phrases of the 4xx and 5xx statuses as net/http names them, in
// words (the termination package stays free of net/http).
var statusTexts = map[int]string{
	400: "bad request", 401: "unauthorized", 402: "payment required", 403: "forbidden", 404: "not found",
	405: "method not allowed", 406: "not acceptable", 407: "proxy authentication required",
	408: "request timeout", 409: "conflict", 410: "gone", 411: "length required", 412: "precondition failed",
	413: "request entity too large", 414: "request uri too long", 415: "unsupported media type",
	422: "unprocessable entity", 423: "locked", 424: "failed dependency", 425: "too early",
	426: "upgrade required", 428: "precondition required", 429: "too many requests",
	431: "request header fields too large", 451: "unavailable for legal reasons",
	500: "internal server error", 501: "not implemented", 502: "bad gateway", 503: "service unavailable",
	504: "gateway timeout", 505: "http version not supported", 507: "insufficient storage",
	508: "loop detected", 511: "network authentication required",
}

// ErrContextOverflow is the typed context overflow: the prompt and history did not fit the
// model's input window. A caller that knows this for certain (it counted the tokens, or its SDK
// typed the error) wraps it, and [Classify] recognises it without reading any text:
//
//	return fmt.Errorf("%w: 210000 tokens > 200000", termination.ErrContextOverflow)
//
// An [APIError] whose Name is "ContextOverflowError" (LangChain's class) reads as typed too.
var ErrContextOverflow = errors.New("context window exceeded")
