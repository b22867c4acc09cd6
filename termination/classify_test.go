package termination

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clsCase is one classification vector: an error and the whole classification it must get.
type clsCase struct {
	name string
	err  error
	want Classification
}

func clsCheck(t *testing.T, cases []clsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.err)
			if got != tc.want {
				t.Errorf("Classify(%v)\n got  %+v\n want %+v", tc.err, got, tc.want)
			}
			if over := IsContextOverflow(tc.err); over != (got.Category == ContextOverflow) {
				t.Errorf("IsContextOverflow = %t, but Classify says %s", over, got.Category)
			}
		})
	}
}

// want builds an expected classification.
func want(c Category, provider, detail string) Classification {
	return Classification{Category: c, Provider: provider, Detail: detail}
}

// statusErr is the Go shape of the origin's plain object {response:{status}, message}: an error
// that is not an *APIError but carries an HTTP status.
type statusErr struct {
	status int
	msg    string
}

func (e statusErr) Error() string   { return e.msg }
func (e statusErr) HTTPStatus() int { return e.status }

// TestClassifyTaxonomyVectors ports the origin's terminationTaxonomy vectors (research 10.1): a
// JS error name is APIError.Name, response.status is APIError.Status, a cause is %w wrapping.
func TestClassifyTaxonomyVectors(t *testing.T) {
	clsCheck(t, []clsCase{
		// Typed overflow: the class alone suffices, whatever the message says.
		{"typed overflow, no code", &APIError{Name: "ContextOverflowError", Message: "This model supports at most 4096 tokens"}, want(ContextOverflow, "", "ContextOverflowError")},
		{"typed overflow with lc code", &APIError{Name: "ContextOverflowError", Code: "CONTEXT_OVERFLOW", Message: "prompt is too long"}, want(ContextOverflow, "", "ContextOverflowError")},
		{"typed overflow, no pattern", &APIError{Name: "ContextOverflowError", Message: "the request was refused for size"}, want(ContextOverflow, "", "ContextOverflowError")},
		{"Go typed overflow", fmt.Errorf("%w: the request was refused for size", ErrContextOverflow), want(ContextOverflow, "", "termination.ErrContextOverflow")},
		{"named overflow through a wrapper", fmt.Errorf("agent: %w", &APIError{Name: "ContextOverflowError", Message: "refused"}), want(ContextOverflow, "", "ContextOverflowError")},
		// The code alone is not the class: never keyed on lc_error_code.
		{"lc code without the class", &APIError{Code: "CONTEXT_OVERFLOW", Message: "the request was refused for size"}, want(Unknown, "", "")},
		{"exceed the context window", errors.New("This request would exceed the context window for this model (400 invalid_request_error)"), want(ContextOverflow, "", "")},
		{"context_length_exceeded + 400", &APIError{Status: 400, Message: "context_length_exceeded"}, want(ContextOverflow, "", "400")},
		{"openai maximum context length", errors.New("This model's maximum context length is 8192 tokens, however you requested 9001."), want(ContextOverflow, "", "")},
		{"deployment limit", errors.New("input tokens exceed the configured limit for this deployment"), want(ContextOverflow, "", "")},
		{"anthropic prompt is too long", errors.New("prompt is too long: 210000 tokens > 200000 maximum"), want(ContextOverflow, "", "")},
		{"request too large, no counts", errors.New("Request too large for gpt-4 in organization org-x"), want(ContextOverflow, "", "")},
		{"invalid tool schema", &APIError{Status: 400, Message: "invalid tool schema: unknown keyword"}, want(InvalidRequest, "", "400")},

		{"slow down 429", &APIError{Status: 429, Message: "slow down"}, want(RateLimited, "", "429")},
		{"rate limit prose", errors.New("Rate limit reached for gpt-4"), want(RateLimited, "", "")},
		{"nope 401", &APIError{Status: 401, Message: "nope"}, want(AuthFailed, "", "401")},
		{"incorrect api key", errors.New("Incorrect API key provided"), want(AuthFailed, "", "")},
		{"down 503", &APIError{Status: 503, Message: "down"}, want(ProviderError, "", "503")},
		{"internal error during token generation", errors.New("Internal error during token generation"), want(ProviderError, "", "")},
		{"socket hang up", errors.New("socket hang up"), want(NetworkError, "", "")},
		{"request timed out", errors.New("Request timed out"), want(Timeout, "", "")},
		{"recursion limit prose", errors.New("Recursion limit of 25 reached without hitting a stop condition"), want(RecursionLimit, "", "recursion limit")},

		{"AbortError", &APIError{Name: "AbortError", Message: "This operation was aborted"}, want(Cancelled, "", "AbortError")},
		{"ModelAbortError", &APIError{Name: "ModelAbortError"}, want(Cancelled, "", "ModelAbortError")},
		{"APIUserAbortError", &APIError{Name: "APIUserAbortError", Message: "Request was aborted."}, want(Cancelled, "", "APIUserAbortError")},
		{"ToolException", &APIError{Name: "ToolException", Message: "tool failed"}, want(ToolError, "", "ToolException")},
		{"GraphInterrupt", &APIError{Name: "GraphInterrupt"}, want(Suspended, "", "GraphInterrupt")},
		{"GraphRecursionError", &APIError{Name: "GraphRecursionError", Message: "too deep"}, want(RecursionLimit, "", "GraphRecursionError")},
		{"TimeoutError", &APIError{Name: "TimeoutError", Message: "x"}, want(Timeout, "", "TimeoutError")},
		{"APITimeoutError", &APIError{Name: "APITimeoutError"}, want(Timeout, "", "APITimeoutError")},
		{"APIConnectionTimeoutError", &APIError{Name: "APIConnectionTimeoutError"}, want(Timeout, "", "APIConnectionTimeoutError")},
		{"APIConnectionError", &APIError{Name: "APIConnectionError", Message: "Connection error."}, want(NetworkError, "", "APIConnectionError")},

		{"bad 400", &APIError{Status: 400, Message: "bad"}, want(InvalidRequest, "", "400")},
		{"invalid request 409 keeps its status", &APIError{Status: 409, Message: "invalid request: already exists"}, want(InvalidRequest, "", "409")},

		// 400 is a bucket: the specific arms recover the cause first.
		{"google bad key as 400", &APIError{Status: 400, Message: "API key not valid. Please pass a valid API key."}, want(AuthFailed, "", "")},
		{"invalid_grant as 400", &APIError{Status: 400, Message: "invalid_grant: token has been expired or revoked"}, want(AuthFailed, "", "")},
		{"quota as 400", &APIError{Status: 400, Message: "Quota exceeded for this project"}, want(RateLimited, "", "")},

		{"status on a plain error type", statusErr{429, "request failed"}, want(RateLimited, "", "429")},
		{"something went sideways", errors.New("something went sideways"), want(Unknown, "", "")},
		{"nil", nil, want(Unknown, "", "")},
		{"empty error", errors.New(""), want(Unknown, "", "")},
		{"typed nil APIError", (*APIError)(nil), want(Unknown, "", "")},

		// The bare "input is too long" stays out of the overflow arms.
		{"tool input too long", &APIError{Name: "ToolException", Message: "Input is too long, maximum 500 characters."}, want(ToolError, "", "ToolException")},

		// Consequences of the order.
		{"ETIMEDOUT: timeout prose beats network prose", errors.New("connect ETIMEDOUT 10.0.0.1:443"), want(Timeout, "", "")},
		{"bare overloaded", errors.New("Overloaded"), want(ProviderError, "", "")},
		{"anthropic 529", &APIError{Provider: "anthropic", Status: 529, Type: "overloaded_error", Message: "Overloaded"}, want(ProviderError, "anthropic", "529")},
		// Deliberately unlike the origin (rate_limited): overloaded_error is Anthropic's 529, a
		// provider fault, as LiteLLM also maps it.
		{"overloaded_error prose, no status", errors.New("overloaded_error: Overloaded"), want(ProviderError, "", "")},

		// The runner-level strings of research 10.4.
		{"429 rate limit reached", errors.New("429 rate limit reached"), want(RateLimited, "", "")},
		{"401 Unauthorized", errors.New("401 Unauthorized"), want(AuthFailed, "", "")},
		{"503 service unavailable", errors.New("503 service unavailable"), want(ProviderError, "", "")},

		// Provider and detail.
		{"provider from the APIError", fmt.Errorf("turn: %w", &APIError{Provider: "groq", Status: 429, Message: "slow"}), want(RateLimited, "groq", "429")},
		{"unknown keeps the name", &APIError{Name: "OpenRouterError", Message: "No choices returned in response."}, want(Unknown, "", "OpenRouterError")},
		{"unknown keeps the status", &APIError{Status: 404, Message: "no route"}, want(Unknown, "", "404")},
	})
}

// TestClassifyCommittedReason ports the CFG-73 vectors: a committed reason outranks everything,
// and the hostile-filename texts show what the prose would have said without it.
func TestClassifyCommittedReason(t *testing.T) {
	committed := New(SiteModelCall, SourceException, Classification{Category: InvalidRequest, Provider: "groq", Detail: "400"})
	filenames := []struct {
		file string
		bare Category // what the text alone reads as
	}{
		{"api-timeout-investigation.pdf", Timeout},
		{"contract - terminated.pdf", NetworkError},
		{"forbidden-zones-map.pdf", AuthFailed},
		{"rate limit escalation.pdf", RateLimited},
		{"internal error postmortem.pdf", ProviderError},
		{"prompt is too long - notes.pdf", ContextOverflow},
	}
	for _, f := range filenames {
		rejection := &APIError{Provider: "groq", Status: 400, Message: "The model could not read the attachment. Note: the file \"" + f.file + "\" was rejected."}
		t.Run(f.file, func(t *testing.T) {
			if got := Classify(rejection).Category; got != f.bare {
				t.Errorf("without a committed reason: %s, want %s", got, f.bare)
			}
			err := Attach(rejection, committed)
			if got := Classify(err); got != committed.Classification() {
				t.Errorf("committed: %+v, want %+v", got, committed.Classification())
			}
			if IsContextOverflow(err) {
				t.Error("IsContextOverflow must honour the committed reason")
			}
		})
	}

	toolErr := New(SiteToolCallSalvage, SourceException, Classification{Category: ToolError})
	cancelled := Control(SiteCancelled, Cancelled)
	auth := New(SiteModelCall, SourceException, Classification{Category: AuthFailed, Provider: "openai", Detail: "401"})
	clsCheck(t, []clsCase{
		{"beats a 429 status", Attach(&APIError{Status: 429, Message: "slow down"}, toolErr), want(ToolError, "", "")},
		{"beats the typed class", Attach(&APIError{Name: "ContextOverflowError", Message: "prompt is too long"}, cancelled), want(Cancelled, "", "")},
		{"beats the Go sentinel", Attach(ErrContextOverflow, cancelled), want(Cancelled, "", "")},
		{"passes provider and detail, adds nothing", Attach(&APIError{Provider: "anthropic", Status: 500, Message: "x"}, auth), want(AuthFailed, "openai", "401")},
		{"honoured on the cause", fmt.Errorf("Agent processing failed: the request timed out: %w", Attach(errors.New("401"), auth)), want(AuthFailed, "openai", "401")},
		{"honoured inside errors.Join", errors.Join(errors.New("request timed out"), Attach(errors.New("x"), auth)), want(AuthFailed, "openai", "401")},
		{"parked without a category falls back to text", Attach(errors.New("Request timed out"), Reason{Site: SiteTurnError}), want(Timeout, "", "")},
		{"parked outer, committed inner", Replace(fmt.Errorf("w: %w", Attach(errors.New("timed out"), auth)), Reason{Site: SiteTurnError}), want(AuthFailed, "openai", "401")},
		{"a committed category outside the vocabulary is unknown", Attach(errors.New("timed out"), Reason{Category: "exploded"}), want(Unknown, "", "exploded")},
	})
}

// closedLoopbackAddr returns a loopback address nothing listens on.
func closedLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// loopbackClient is an HTTP client that never goes through a proxy.
func loopbackClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
}

// TestClassifyTypedGo classifies real Go error values, not strings that look like them.
func TestClassifyTypedGo(t *testing.T) {
	addr := closedLoopbackAddr(t)

	_, dialErr := net.Dial("tcp", addr)
	var opErr *net.OpError
	if !errors.As(dialErr, &opErr) || !errors.Is(dialErr, syscall.ECONNREFUSED) {
		t.Fatalf("dialing a closed port gave %T %v, want a *net.OpError wrapping ECONNREFUSED", dialErr, dialErr)
	}

	// Loopback is never proxied (net/http's ProxyFromEnvironment excludes it).
	_, getErr := http.Get("http://" + addr + "/v1/chat/completions")
	if getErr == nil {
		t.Fatal("GET to a closed port succeeded")
	}

	// A server that accepts and closes without answering: the client's EOF.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the request head first, so the client is waiting for a response when the
			// connection closes (closing earlier reads as an idle connection the server closed).
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil || line == "\r\n" {
					break
				}
			}
			c.Close()
		}
	}()
	_, eofErr := loopbackClient().Get("http://" + ln.Addr().String() + "/")
	if eofErr == nil || !errors.Is(eofErr, io.EOF) {
		t.Fatalf("GET to a closing server gave %v, want EOF", eofErr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, cancelErr := loopbackClient().Do(req)

	past, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	<-past.Done()

	// A read on a pipe whose deadline has already passed: os.ErrDeadlineExceeded, immediately.
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if err := p1.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	_, deadlineErr := p1.Read(make([]byte, 1))

	dnsErr := &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}
	dnsTimeout := &net.DNSError{Err: "i/o timeout", Name: "api.example", IsTimeout: true}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}

	clsCheck(t, []clsCase{
		{"context.Canceled", context.Canceled, want(Cancelled, "", "context.Canceled")},
		{"wrapped context.Canceled", fmt.Errorf("turn: %w", context.Canceled), want(Cancelled, "", "context.Canceled")},
		{"HTTP request on a cancelled context", cancelErr, want(Cancelled, "", "context.Canceled")},
		{"context.DeadlineExceeded", past.Err(), want(Timeout, "", "context.DeadlineExceeded")},
		{"os.ErrDeadlineExceeded from a pipe", deadlineErr, want(Timeout, "", "os.ErrDeadlineExceeded")},
		{"ECONNREFUSED from dialing a closed port", dialErr, want(NetworkError, "", "syscall.ECONNREFUSED")},
		{"*url.Error from GET to a closed port", getErr, want(NetworkError, "", "syscall.ECONNREFUSED")},
		{"EOF from a server that hung up", eofErr, want(NetworkError, "", "io.EOF")},
		{"a bare io.EOF is not a network error", fmt.Errorf("stream: %w", io.EOF), want(Unknown, "", "")},
		{"idle connection closed, as prose", errors.New(`Get "http://127.0.0.1:1/": http: server closed idle connection`), want(NetworkError, "", "")},
		{"ECONNRESET", syscall.ECONNRESET, want(NetworkError, "", "syscall.ECONNRESET")},
		{"ECONNRESET in a *net.OpError", reset, want(NetworkError, "", "syscall.ECONNRESET")},
		{"EPIPE", fmt.Errorf("write: %w", syscall.EPIPE), want(NetworkError, "", "syscall.EPIPE")},
		{"ETIMEDOUT", os.NewSyscallError("connect", syscall.ETIMEDOUT), want(Timeout, "", "syscall.ETIMEDOUT")},
		{"io.ErrUnexpectedEOF mid-body", fmt.Errorf("reading response body: %w", io.ErrUnexpectedEOF), want(NetworkError, "", "io.ErrUnexpectedEOF")},
		{"*net.DNSError", dnsErr, want(NetworkError, "", "*net.DNSError")},
		{"*net.DNSError timeout", dnsTimeout, want(Timeout, "", "Timeout()")},
		{"bare *net.OpError", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("something odd")}, want(NetworkError, "", "*net.OpError")},
		{"tls.RecordHeaderError", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, want(NetworkError, "", "tls.RecordHeaderError")},
		{"tls.AlertError", fmt.Errorf("handshake: %w", tls.AlertError(40)), want(NetworkError, "", "tls.AlertError")},
		{"x509.UnknownAuthorityError", x509.UnknownAuthorityError{}, want(NetworkError, "", "x509.UnknownAuthorityError")},
		{"*tls.CertificateVerificationError", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, want(NetworkError, "", "*tls.CertificateVerificationError")},
		// Typed cases outrank the status: the 502 was never read off a completed response.
		{"network error beside a status", errors.Join(&APIError{Status: 502}, io.ErrUnexpectedEOF), want(NetworkError, "", "io.ErrUnexpectedEOF")},
		// The typed overflow outranks the cancellation, as the origin's order has it.
		{"overflow before cancel", errors.Join(context.Canceled, ErrContextOverflow), want(ContextOverflow, "", "termination.ErrContextOverflow")},
	})
}

// TestClassifyStatus pins the status arms and the status's place in the order.
func TestClassifyStatus(t *testing.T) {
	var cases []clsCase
	for _, tc := range []struct {
		status int
		cat    Category
	}{
		{429, RateLimited}, {401, AuthFailed}, {403, AuthFailed}, {408, Timeout}, {504, Timeout},
		{500, ProviderError}, {502, ProviderError}, {503, ProviderError}, {529, ProviderError},
		{599, ProviderError}, {400, InvalidRequest},
		// Other 4xx without prose: unknown, as in the origin (a recorded gap).
		{404, Unknown}, {409, Unknown}, {413, Unknown}, {422, Unknown},
		// Out of [100, 600): not a status.
		{0, Unknown}, {600, Unknown}, {-1, Unknown},
	} {
		detail := ""
		if tc.status >= 100 && tc.status < 600 {
			detail = fmt.Sprint(tc.status)
		}
		cases = append(cases, clsCase{fmt.Sprint("status ", tc.status), &APIError{Status: tc.status, Message: "x"}, want(tc.cat, "", detail)})
	}
	cases = append(cases,
		clsCase{"402 is billing", &APIError{Status: 402, Message: "x"}, want(AuthFailed, "", "402")},
		clsCase{"status beats prose", &APIError{Status: 503, Message: "request timed out"}, want(ProviderError, "", "503")},
		clsCase{"first carrier wins", fmt.Errorf("%w", errors.Join(statusErr{401, "a"}, &APIError{Status: 503})), want(AuthFailed, "", "401")},
		clsCase{"a 200 stream error takes the body's status", &APIError{Provider: "openrouter", Status: 200, Body: `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min."}}`}, want(RateLimited, "openrouter", "429")},
		clsCase{"so does its parsed form", ParseErrorBody("openrouter", 200, `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min."}}`), want(RateLimited, "openrouter", "429")},
		clsCase{"a status in the code", &APIError{Code: "503", Message: "x"}, want(ProviderError, "", "503")},
	)
	clsCheck(t, cases)
}

// TestClassifyStructuredCodes: provider codes name the cause where the status does not.
func TestClassifyStructuredCodes(t *testing.T) {
	clsCheck(t, []clsCase{
		// Anthropic sends stream errors inside a 200: classify on the type, never the status.
		{"anthropic stream overloaded_error", ParseErrorBody("anthropic", 200, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), want(ProviderError, "anthropic", "overloaded_error")},
		{"anthropic stream rate_limit_error", ParseErrorBody("anthropic", 200, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`), want(RateLimited, "anthropic", "rate_limit_error")},
		{"anthropic timeout_error", &APIError{Provider: "anthropic", Type: "timeout_error", Message: "Request timeout"}, want(Timeout, "anthropic", "timeout_error")},
		{"google UNAVAILABLE without status", &APIError{Provider: "google", Type: "UNAVAILABLE", Message: "The model is overloaded."}, want(ProviderError, "google", "UNAVAILABLE")},
		{"google UNAUTHENTICATED", &APIError{Type: "UNAUTHENTICATED", Message: "Request had invalid authentication credentials."}, want(AuthFailed, "", "UNAUTHENTICATED")},
		{"codes are case-insensitive", &APIError{Code: "Invalid_API_Key", Message: "x"}, want(AuthFailed, "", "Invalid_API_Key")},
		{"azure content filter 400", ParseErrorBody("azure", 400, `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":true,"severity":"high"}}}}}`), want(ContentRefusal, "azure", "content_filter")},
		// Ollama's /v1 sends type api_error on a 400: not a provider fault.
		{"ollama api_error 400", ParseErrorBody("ollama", 400, `{"error":{"message":"registry.ollama.ai/library/gemma3:4b does not support tools","type":"api_error","param":null,"code":null}}`), want(InvalidRequest, "ollama", "400")},
		// Groq's failed_generation is the model's own text and is never read.
		{"groq tool_use_failed", ParseErrorBody("groq", 400, `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"I hit a rate limit and the request timed out; prompt is too long"}}`), want(InvalidRequest, "groq", "400")},
	})
}

// TestClassifyHardCases pins the three decisions research section 13 left open (and the brief
// asked for): a per-minute token limit no back-off can satisfy, quota or billing exhaustion, and
// a 400 that is really auth.
func TestClassifyHardCases(t *testing.T) {
	groqTooLarge := ParseErrorBody("groq", 413, `{"error":{"message":"Request too large for model `+"`llama-3.1-8b-instant`"+` in organization `+"`org_01`"+` service tier `+"`on_demand`"+` on tokens per minute (TPM): Limit 6000, Requested 6294, please reduce your message size and try again. Visit https://console.groq.com/docs/rate-limits for more information.","type":"tokens","code":"rate_limit_exceeded"}}`)
	groqOrdinary := ParseErrorBody("groq", 429, `{"error":{"message":"Rate limit reached for model `+"`llama-3.1-8b-instant`"+` in organization `+"`org_01`"+` service tier `+"`on_demand`"+` on tokens per minute (TPM): Limit 6000, Used 5034, Requested 1443. Please try again in 4.77s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing","type":"tokens","code":"rate_limit_exceeded"}}`)
	if groqOrdinary.RetryAfter != 4770*time.Millisecond {
		t.Errorf("RetryAfter of the ordinary TPM 429 = %v, want 4.77s", groqOrdinary.RetryAfter)
	}
	clsCheck(t, []clsCase{
		// (a) Tokens per minute. The request alone is larger than the limit: no wait makes it
		// fit, sending fewer tokens does, so context_overflow (reduce-context).
		{"groq 413 request larger than the TPM limit", groqTooLarge, want(ContextOverflow, "groq", "413")},
		{"openai 429 request larger than the TPM limit", &APIError{Provider: "openai", Status: 429, Code: "rate_limit_exceeded", Message: "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 342389. The input or output tokens must be reduced in order to run successfully."}, want(ContextOverflow, "openai", "429")},
		{"worded as a rate limit, still larger than the limit", &APIError{Status: 429, Message: "Rate limit reached for model m on tokens per minute (TPM): Limit 6000, Used 0, Requested 20000."}, want(ContextOverflow, "", "429")},
		{"per-day limit smaller than the request", &APIError{Status: 429, Message: "Rate limit reached on tokens per day (TPD): Limit 100,000, Requested 120,000."}, want(ContextOverflow, "", "429")},
		// The request fits: the window rolling over fixes it, so rate_limited (back-off).
		{"groq ordinary TPM 429", groqOrdinary, want(RateLimited, "groq", "429")},
		{"request too large that fits stands down", &APIError{Status: 429, Message: "Request too large for model m on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000. Please try again in 7s."}, want(RateLimited, "", "429")},
		{"same on a 413 falls to its code", &APIError{Status: 413, Code: "rate_limit_exceeded", Message: "Request too large for model m on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000."}, want(RateLimited, "", "rate_limit_exceeded")},
		{"a limit on requests is not a token budget", &APIError{Status: 429, Message: "Rate limit reached on requests per day (RPD): Limit 1, Used 1, Requested 2."}, want(RateLimited, "", "429")},

		// (b) Quota and billing: auth_failed, whose remedy (fix-credentials) is the honest one.
		{"openai insufficient_quota 429", ParseErrorBody("openai", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`), want(AuthFailed, "openai", "insufficient_quota")},
		{"openai insufficient_quota, code null", ParseErrorBody("openai", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":null}}`), want(AuthFailed, "openai", "insufficient_quota")},
		{"the billing sentence alone", &APIError{Status: 429, Message: "429 You exceeded your current quota, please check your plan and billing details."}, want(AuthFailed, "", "429")},
		{"anthropic credit balance 400", ParseErrorBody("anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`), want(AuthFailed, "anthropic", "400")},
		{"openrouter 402", ParseErrorBody("openrouter", 402, `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/credits"}}`), want(AuthFailed, "openrouter", "402")},
		{"deepseek 402", ParseErrorBody("deepseek", 402, `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`), want(AuthFailed, "deepseek", "402")},
		{"gemini free tier per day", ParseErrorBody("google", 429, geminiQuota429("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "generativelanguage.googleapis.com/generate_content_free_tier_requests", "limit: 50")), want(AuthFailed, "google", "429")},
		{"gemini model outside the free tier", ParseErrorBody("google", 429, geminiQuota429("GenerateContentInputTokensPerModelPerMinute-FreeTier", "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count", "limit: 0")), want(AuthFailed, "google", "429")},
		// Gemini sends the billing sentence on every quota 429: per minute, back-off works.
		{"gemini per minute", ParseErrorBody("google", 429, geminiQuota429("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "generativelanguage.googleapis.com/generate_content_free_tier_requests", "limit: 10")), want(RateLimited, "google", "429")},
		{"gemini quota without ids", ParseErrorBody("gemini", 429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED"}}`), want(RateLimited, "gemini", "429")},
		{"vertex per-minute quota", &APIError{Status: 429, Message: "429 Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-pro."}, want(RateLimited, "", "429")},
		{"groq per-day tokens: back-off works", &APIError{Status: 429, Code: "rate_limit_exceeded", Message: "Rate limit reached for model m on tokens per day (TPD): Limit 500000, Used 499000, Requested 2000. Please try again in 2m52.8s."}, want(RateLimited, "", "429")},
		{"cerebras daily token quota", ParseErrorBody("cerebras", 429, `{"message":"Tokens per day limit exceeded - too many tokens processed.","type":"too_many_tokens_error","param":"quota","code":"token_quota_exceeded"}`), want(RateLimited, "cerebras", "429")},

		// (c) A 400 that is really auth.
		{"google bad key body", ParseErrorBody("google", 400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`), want(AuthFailed, "google", "API_KEY_INVALID")},
		{"oauth invalid_grant body", ParseErrorBody("vertex", 400, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`), want(AuthFailed, "vertex", "")},
	})
}

// geminiQuota429 is a Gemini API quota 429 body with one QuotaFailure violation.
func geminiQuota429(quotaID, metric, limit string) string {
	return `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: ` + metric + `, ` + limit + `, model: gemini-2.5-pro\nPlease retry in 45.37s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"` + metric + `","quotaId":"` + quotaID + `","quotaDimensions":{"location":"global","model":"gemini-2.5-pro"}}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45s"}]}}`
}

// TestClassifyLiteLLMAnchors runs LiteLLM's per-provider substrings (research 11) through the
// classifier. Where we classify differently from LiteLLM on purpose, note says why.
func TestClassifyLiteLLMAnchors(t *testing.T) {
	rows := []struct {
		text string
		want Category
		note string
	}{
		// Context window.
		{"exceed context limit: 199759 + 8192 > 200000", ContextOverflow, ""},
		{"This model's maximum context length is 4097 tokens", ContextOverflow, ""},
		{"Invalid 'messages[2].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.", ContextOverflow, ""},
		{"Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 2048 instead.", Unknown, "LiteLLM calls any such string a context overflow; only the messages are context"},
		{"Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length 80 instead.", Unknown, "LiteLLM excludes it too"},
		{"the model's maximum context limit is 8192", ContextOverflow, ""},
		{"Prompt of 9000 tokens is longer than the model's context length of 8192", ContextOverflow, ""},
		{"input tokens exceed the configured limit of 272000 tokens", ContextOverflow, ""},
		{"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 500 `max_new_tokens`", ContextOverflow, ""},
		{"the request exceeds the available context size, try increasing it", ContextOverflow, ""},
		{"The input token count exceeds the maximum number of tokens allowed 1048576.", ContextOverflow, ""},
		{"Please reduce the length of the messages or completion. Current length is 9000 while limit is 8192", ContextOverflow, ""},
		{"This model's maximum input length is 8192 tokens", ContextOverflow, ""},
		{"prompt is too long: 201000 tokens > 200000 maximum", ContextOverflow, ""},
		{"prompt: length: 1..200000", ContextOverflow, ""},
		{"Input is too long", Unknown, "deliberately not an overflow arm (Replicate, Bedrock bare wording): a tool's own 'Input is too long' must not compact history"},
		{"Malformed input request: expected maxLength: 50000, actual: 60000", ContextOverflow, ""},
		{"Too many input tokens. Max input tokens: 200000", ContextOverflow, ""},
		{"prompt tokens (210000) exceed model maximum (200000)", ContextOverflow, ""},
		{"400 Request payload size exceeds the limit: 20971520 bytes.", ContextOverflow, ""},
		{"too many tokens: total number of tokens in the prompt cannot exceed 4081", ContextOverflow, ""},
		{"Input validation error: length limit exceeded", ContextOverflow, ""},
		{"Prompt has too many tokens", ContextOverflow, ""},
		{"Input text length should not exceed 1000 tokens", ContextOverflow, ""},
		{"This is longer than the model's maximum context length", ContextOverflow, ""},
		// Rate.
		{"Rate limit exceeded", RateLimited, ""},
		{"rate_limit exceeded", RateLimited, ""},
		{"rate-limit hit", RateLimited, ""},
		{"Error 429 from upstream", Unknown, "LiteLLM reads a bare 429 in the text; a number in prose is not a status"},
		{"Service tier capacity exceeded for this model.", RateLimited, ""},
		{"Request too large for gpt-4o in organization org-x", ContextOverflow, "LiteLLM says RateLimitError; a request larger than the limit needs fewer tokens, not a wait"},
		{"429 Quota exceeded for aiplatform.googleapis.com", RateLimited, ""},
		{"Quota exceeded for quota metric", RateLimited, ""},
		{"resource exhausted", RateLimited, ""},
		{"RESOURCE_EXHAUSTED", RateLimited, ""},
		{"429 Unable to submit request because the service is temporarily out of capacity. Try again later.", RateLimited, ""},
		{"ThrottlingException: Too many requests, please wait before trying again.", RateLimited, ""},
		{"token_quota_reached", RateLimited, ""},
		{"Request was throttled. Expected available in 2 seconds.", RateLimited, ""},
		// Timeouts.
		{"Request Timeout Error", Timeout, ""},
		{"Request timed out.", Timeout, ""},
		{"Timed out generating response", Timeout, ""},
		{"The read operation timed out", Timeout, ""},
		{"A timeout occurred", Timeout, ""},
		// Content policy: LiteLLM raises ContentPolicyViolationError, the origin has no exception arm.
		{"content_policy_violation", ContentRefusal, ""},
		{"ResponsibleAIPolicyViolation", ContentRefusal, ""},
		{"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", ContentRefusal, ""},
		{"Your task failed as a result of our safety system.", ContentRefusal, ""},
		{"content_filter_policy", ContentRefusal, ""},
		{"Your request was rejected as a result of our safety system.", ContentRefusal, ""},
		{"Invalid prompt: your prompt was flagged as potentially violating our usage policy.", ContentRefusal, ""},
		{"Output blocked by content filtering policy", ContentRefusal, ""},
		{"The response was blocked.", ContentRefusal, ""},
		{"The model produced invalid content. Consider modifying your prompt.", Unknown, "LiteLLM lists it as content policy; it is malformed model output, not a refusal"},
		// Provider side.
		{"overloaded_error", ProviderError, ""},
		{"Overloaded", ProviderError, ""},
		{"The model is overloaded. Please try again later.", ProviderError, ""},
		{"500 Internal Server Error", ProviderError, ""},
		{"None Unknown Error.", Unknown, "too vague to be a cause"},
		{"Content has no parts.", Unknown, "an empty reply, which the metadata feeder owns"},
		// Auth.
		{"API key not valid. Please pass a valid API key.", AuthFailed, ""},
		{"Invalid API Key", AuthFailed, ""},
		{"Unable to locate credentials", AuthFailed, ""},
		{"The security token included in the request is invalid.", AuthFailed, ""},
	}
	for _, r := range rows {
		t.Run(r.text, func(t *testing.T) {
			if got := Classify(errors.New(r.text)).Category; got != r.want {
				t.Errorf("Classify(%q) = %s, want %s %s", r.text, got, r.want, r.note)
			}
		})
	}
	// LiteLLM's status fallback, where it differs: 404 and 422 have no cause we can name.
	for status, note := range map[int]string{404: "LiteLLM NotFoundError", 422: "LiteLLM BadRequestError"} {
		if got := Classify(&APIError{Status: status}).Category; got != Unknown {
			t.Errorf("status %d = %s, want unknown (%s; the origin records the gap)", status, got, note)
		}
	}
}

// panicky is an error whose every method panics.
type panicky struct{}

func (panicky) Error() string   { panic("Error") }
func (panicky) Unwrap() error   { panic("Unwrap") }
func (panicky) HTTPStatus() int { panic("HTTPStatus") }

// loop is an error that unwraps to itself.
type loop struct{ msg string }

func (e *loop) Error() string { return e.msg }
func (e *loop) Unwrap() error { return e }

// TestClassifyHostileErrors: whatever the error does, Classify returns a valid category and does
// not panic or spin.
func TestClassifyHostileErrors(t *testing.T) {
	wide := make([]error, 1000)
	for i := range wide {
		wide[i] = fmt.Errorf("%d", i)
	}
	wide = append(wide, errors.New("request timed out"))
	deep := error(errors.New("base"))
	for range 10000 {
		deep = fmt.Errorf("w: %w", deep)
	}
	huge := errors.New(strings.Repeat("x", 1<<20) + " request timed out")
	clsCheck(t, []clsCase{
		{"panicking methods", panicky{}, want(Unknown, "", "")},
		{"panicking error wrapped", fmt.Errorf("w: %w", panicky{}), want(Unknown, "", "")},
		{"self-unwrapping loop", &loop{"request timed out"}, want(Timeout, "", "")},
		{"nil inside a join", errors.Join(nil, errors.New("socket hang up")), want(NetworkError, "", "")},
		{"typed nil inside a join", errors.Join((*APIError)(nil), errors.New("socket hang up")), want(NetworkError, "", "")},
		{"wide join is cut, not spun", errors.Join(wide...), want(Timeout, "", "")},
		{"deep chain is cut, not spun", deep, want(Unknown, "", "")},
		{"text past the bound is not read", huge, want(Unknown, "", "")},
		{"invalid utf-8", errors.New("\xff\xfe rate limit \xc3"), want(RateLimited, "", "")},
	})
	if arms := ContextOverflowArms(panicky{}); arms != nil {
		t.Errorf("ContextOverflowArms(panicky) = %v", arms)
	}
}
