package termination

import (
	"fmt"
	"strings"
)

// kind is a set of kinds of evidence a provider's words give, one bit each.
type kind uint64

// The kinds of evidence. Each is one list in [lexicon]; the feature methods of [features]
// combine them.
const (
	kQuantity      kind = 1 << iota // what an input is measured in: tokens, characters, context, …
	kInput                          // the input: context, prompt, messages, history, …
	kOutput                         // the output cap: output, completion, max_tokens, …
	kPerTime                        // a per-time rate: per minute, TPM, rate limit, …
	kTooLarge                       // "too large"
	kTooMuch                        // too long, too big, too many, overflow
	kExceed                         // exceeds, over, greater, longer, >, …
	kLimit                          // a limit: limit, maximum, context window, capacity, allowed, …
	kMask                           // phrases that name a thing, not a limit hit: "context deadline exceeded", "input validation", "rate limit usage"
	kFilterStrong                   // moderation, guardrail, content policy, … decide alone
	kFilterSoft                     // safety, policy, blocked, refused, … need a kJudged word
	kJudged                         // what was judged, or the judging: content, violation, detected, …
	kPerDay                         // per day, daily, monthly
	kQuotaWord                      // quota, limit, throttle, allocation, too many
	kUpgrade                        // upgrade
	kPlan                           // plan, tier, paid
	kGoogle                         // Google's quota vocabulary: googleapis, resource exhausted
	kLimitZero                      // "limit 0": a quota of nothing
	kFree                           // free
	kTier                           // tier
	kNegation                       // not, no, doesn't
	kBilling                        // billing, credit, arrears, insufficient quota, payment required, …
	kRecursion                      // recursion limit
	kAbort                          // abort, cancel, interrupt, client closed request
	kConnection                     // connection, socket, ECONN…, deadline: an abort that is not the caller's
	kProcess                        // a process, exit status: a crash, not a cut
	kProcessEnd                     // terminated, exited, killed, died: with kProcess, a crash
	kRange                          // range: with an input's measure, an allowed range it left
	kMeasure                        // length, size: what an input's range is stated in
	kCut                            // premature close, incomplete read, stream ended, terminated, …
	kEnded                          // stream ended: a cut, unless what it ended with is named as nothing
	kStreaming                      // streaming, mid stream
	kStreamBreak                    // connection, idle, partial: with kStreaming, a cut
	kTimeout                        // timeout, timed out, deadline
	kCertificate                    // certificate, x509
	kUntrusted                      // verify, untrusted, self-signed, expired, unknown authority, …
	kTransport                      // connection, socket, reset, refused, EOF, DNS, TLS, max retries, …
	kRate                           // rate limit, throttle, quota, too many requests, …
	kCredentials                    // unauthorized, forbidden, API key, permission, …
	kAccount                        // account
	kAccountBarred                  // suspended, disabled, banned, locked, …
	kModel                          // model
	kNotFound                       // not found, does not exist, try pulling, …
	kEmpty                          // no output, empty response, none were returned, …
	kTruncated                      // finish reason length, response too long, …
	kOutputCap                      // length limit, token limit, max tokens
	kFault                          // overloaded, internal, unavailable, upstream, crash, out of memory, …
	kInvalid                        // invalid, malformed, unsupported, bad request, required, alternate, …
	kEOF                            // EOF: a transport's, unless a schema validator met it (kSchema)
	kSchema                         // a schema validator's report: validation error, json_invalid
	kHedge                          // if, whether, might, may need: what follows is a guess, not a report
	kBelow                          // less than, fewer than, at most: a cap stated as a requirement
	kTruncWord                      // truncated
	kReply                          // response, reply, answer: what the model sends back
	kShortTime                      // per minute, per second, TPM, QPS: a rate, not a budget
	kResource                       // insufficient system resources, out of memory: the server's lack
	kState                          // overloaded, degraded, still loading: the serving side's state
	kCarried                        // content, text, parts, candidates, choices: what a reply carries
	kTurnCap                        // max turns, session turns, max steps: an agent loop's budget of turns
	kRare                           // loop, tool, mcp, command, usage limit, response failed: a word some rarely met rule needs, so the rest skip their look
)

// lexicon is the vocabulary of the features: for each kind, its words and phrases (matched
// whole) and its stems (written "stem*", matched at the start of a word; a stem may span words,
// "rate limit*"). They are words any provider uses, never one provider's sentence.
var lexicon = map[kind][]string{
	kQuantity: {"token*", "character*", "chars*", "context*", "prompt*", "input*", "length*", "ctx*",
		"window*", "payload*", "size*", "byte*", "sequence*"},
	kInput: {"context*", "prompt*", "input*", "ctx*", "window*", "payload*", "message*", "sequence*",
		"conversation*", "history*"},
	kOutput: {"output*", "completion*", "generation*", "max tokens", "maximum tokens", "max new tokens", "max completion tokens",
		"max output tokens", "num predict"},
	kPerTime: {"per minute", "per min", "per day", "per hour", "per second", "tpm", "rpm", "tpd", "rpd",
		"itpm", "otpm", "rate limit", "rate limited"},
	kTooLarge: {"too large"},
	kTooMuch:  {"too long", "too big", "too many", "overflow*"},
	kExceed:   {"exceed*", "surpass*", "over", "greater", "longer", "larger", "more than", "beyond", "above", ">", ">=", "<=", "≥", "≤"},
	kLimit:    {"limit*", "maxim*", "context*", "window*", "ctx*", "capacit*", "allow*", "availab*", "max", "dimension size"},
	// The names of things that hold a limit's words without reporting a limit hit: Go's and
	// Python's deadline errors, a validator's name (TGI's "Input validation error"), and rate
	// limit reports (a usage object, the x-ratelimit-remaining and -reset headers).
	kMask: {"context deadline exceeded", "deadline exceeded", "context canceled", "context cancelled",
		"failed to load resource",                            // a browser's resource load, no model's
		"took too long", "taking too long", "takes too long", // a time, not an input "too long"
		"input validation", "rate limit usage", "rate limit remaining", "ratelimit remaining",
		"rate limit reset", "ratelimit reset",
		// pydantic's error type for a field the API does not take; a refused connection; the
		// names of Gemini's response fields a client points at.
		"extra forbidden", "connection refused", "safety ratings", "safety rating", "prompt feedback",
		// "process" the verb, not the server's process; OkHttp's "unexpected end of stream on
		// <route>", thrown before any response came
		"to process", "while processing", "unexpected end of stream on",
		// Java's InterruptedIOException, the parent of SocketTimeoutException, which OkHttp throws
		// for a call timeout and a rejected dispatch alike: the class names no cancel
		"interrupted io exception",
		// a report that nothing was charged: "No credits consumed on this tool call"
		"credits consumed", "credit consumed", "credits charged", "credits deducted"},

	kFilterStrong: {"moderat*", "flagged*", "harmful*", "inappropriat*", "prohibited*", "guardrail*", "unsafe*",
		"censor*", "jailbreak*", "objectionable*", "offensive*", "toxic*", "nsfw*",
		"responsible ai", "content filter", "content filtering", "content management", "safety system",
		"safety filter", "safety filters", "data inspection", "high risk", "usage policy", "usage policies",
		"content policy", "content policies", "acceptable use", "safety reasons", "safety concerns",
		"usage guidelines", "content guidelines", "community guidelines",
		// the same words in the other languages providers answer in
		"moderaci*", "moderazion*", "inapropiad*", "inadequad*", "sicurezza*"},
	kFilterSoft: {"safety*", "polic*", "sensitive*", "blocked*", "filtered*", "refus*", "risk*", "security warning*"},
	kJudged: {"content*", "violat*", "block*", "reject*", "system*", "usage*", "trigger*", "detect*", "flag*",
		"harm*", "prompt*", "response*", "output*", "input*"},

	kPerDay:    {"per day", "daily", "perday", "monthly", "per month"},
	kQuotaWord: {"quota*", "limit*", "throttl*", "allocation*", "too many"},
	kUpgrade:   {"upgrad*"},
	kPlan:      {"plan*", "tier*", "paid*"},
	kGoogle:    {"googleapis*", "resource exhausted"},
	kLimitZero: {"limit 0", "limit value 0"}, // Google's quota_limit_value "0" too
	kFree:      {"free*"},
	kTier:      {"tier*"},
	kNegation:  {"doesn t", "didn t", "not", "no", "never"},
	kBilling: {"billing*", "arrear*", "overdue*", "credit*", "insufficient quota", "insufficient balance",
		"budget exceeded", "budget has been exceeded", "budget exhausted", "spend limit", "abrechnung*", // German: billing
		"insufficient funds", "payment required", "exceeded your current quota", "check your plan", "can only afford"},

	kRecursion: {"recursion limit"},
	kRare:      {"loop", "loops", "tool*", "mcp", "command", "unexpected model behavior", "usage limit", "response failed", "response incomplete", "finish reason error"},
	kTurnCap: {"max turns", "maximum turns", "session turns", "turn limit", "turns limit", "max steps",
		"maximum steps", "step limit", "max iterations", "maximum iterations", "iteration limit",
		"maximum number of turns", "maximum number of steps", "maximum number of iterations",
		"maximum number of actions", "max actions", "tool call iterations", "tool calls limit",
		"maximum iteration"},
	kAbort: {"abort*", "cancel*", "interrupt*", "client closed request",
		"stopped by the user", "stopped by user", "stopped by the client", "user stopped"},
	kConnection: {"connect*", "econn*", "socket*", "deadline*", "broken pipe", "epipe*"},

	kProcess:    {"exit status", "exit code", "process", "processes", "runner", "engine"},
	kProcessEnd: {"terminated", "exited", "exit status", "exit code", "killed", "died", "dead", "crashed"},
	kRange:      {"range"},
	kMeasure:    {"length*", "size*", "len"},
	kCut: {"premature*", "partial response", "incomplete read", "incomplete chunked", "chunked encoding",
		"ended unexpectedly", "without a finish", "without finish", "terminated", "stream closed", "stream disconnected",
		"stream interrupted", "unexpected end of stream", "stream dropped", "stream was dropped",
		// closed before the stream's end: "closed mid-response", "closed before a terminal
		// response event", "bridge closed before the turn finished"
		"mid response", "mid stream", "before a terminal", "before the terminal", "before terminal",
		"before the turn finished", "before the turn completed",
		"stream was reset", "stream reset", "rst stream", "transfer closed",
		"error decoding response body", "stream stopped", "stopped streaming", "response stopped", "stopped arriving",
		"stream error stream id", // Go's HTTP/2 StreamError: the stream was reset mid-reply
		"body closed",            // Go's "http2: response body closed" while the stream was read
		"stream broken",          // SageMaker's ModelStreamError code StreamBroken
		// the body's transfer framing broke: aiohttp's TransferEncodingError, urllib3's
		// InvalidChunkLength, the JDK's "chunked transfer encoding, state: READING_LENGTH"
		"transfer length", "chunk length", "chunked transfer encoding"},
	kEnded:       {"stream ended", "response ended", "body ended", "stream finished"},
	kStreaming:   {"streaming", "stream idle", "mid stream"},
	kStreamBreak: {"connect*", "partial*", "eof", "reset", "broken pipe"},

	kTimeout: {"timeout*", "etimedout*", "timedout*", "timed out", "time out", "deadline exceeded", "deadline",
		"took too long", "took longer", "respond within", "respond in time", "responded within",
		"stream stalled", "stalled for"}, // "AI SDK stream stalled: no event for 60000ms": an idle timer
	kCertificate: {"certificate*", "x509*", "cert*"},
	kUntrusted: {"verif*", "untrust*", "selfsigned*", "expired*", "issuer*", "self signed", "unknown authority",
		"not trusted", "hostname mismatch", "invalid"},
	kTransport: {"connect*", "disconnect*", "socket*", "econn*", "enotfound*", "eai*", "epipe*", "ehostunreach*",
		"enetunreach*", "enetdown*", "getaddrinfo*", "unreachable*", "handshake*", "dns*", "network*", "goaway*",
		"peer", "reset", "refused", "tls", "ssl", "no such host", "name resolution", "resolve host",
		"max retries", "fetch failed", "failed to fetch", "other side closed", "hang up", "broken pipe",
		"name or service not known", "nodename nor servname", "channel closed", "http2 error", "transport error", "error sending request",
		"end of stream on", "offline"},
	kRate: {"ratelimit*", "throttl*", "quota*", "rate limit*", "too many requests", "resource exhausted",
		"requests per", "tokens per", "queries per", "tpm", "rpm", "qps", "slow down", "concurrency limit",
		"concurrent requests"},
	kCredentials: {"unauthori*", "unauthenticat*", "authenticat*", "forbidden*", "credential*", "apikey*", "oauth*",
		"permission*", "api key", "api token", "access denied", "access is denied", "not authorized",
		"access token", "invalid token", "token expired", "expired token", "auth", "invalid grant",
		"invalid signature", "incomplete signature", "request signature", "signature mismatch", "signature does not match",
		"scope requirement", "insufficient scope", "required scope", "missing scope",
		"authorization failed", "authorisation failed", "authorization error",
		"must be verified"}, // "Your organization must be verified to stream this model"
	kAccount: {"account", "access", "organization", "organisation"},
	kAccountBarred: {"inactive*", "suspend*", "disabled*", "deactivat*", "banned*", "lock*", "terminated", "revoked",
		"been blocked", "been banned"}, // "Sorry, you have been blocked … unable to access": the caller, not the content
	kModel: {"model*", "endpoint*", "deployment*", "requested entity"},
	kNotFound: {"not found", "does not exist", "doesn t exist", "no such", "unknown model", "invalid model",
		"not a valid model", "incorrect model", "wrong model", "try pulling", "pull the model",
		// no model chosen at all: "No chat model selected"
		"no model", "no chat model", "no default model"},
	kEmpty: emptyPhrases(),
	kTruncated: {"length finish reason", "finish reason length", "response too long", "output too long",
		// the output cap named as the failure: "This workflow failed with MAX_TOKENS error"
		"failed with max tokens", "stopped with max tokens", "ended with max tokens", "finished with max tokens",
		"due to max tokens", "finish reason max tokens",
		// Python's json on a document cut off inside a string, as the "EOF while parsing" pin
		"unterminated string",
		"result truncated", "results truncated"}, // a tool's or a sub-agent's result cut at its channel's cap
	kOutputCap: {"length limit", "token limit", "output limit", "max tokens"},
	kFault: {"model stream error", "model error exception", "should never happen", "should not happen", "overload*", "internal*", "unavailable*", "upstream*", "crash*", "panic*", "segfault*", "segmentation*",
		"server error", "system error", "bad gateway", "service unavailable", "out of memory", "oom",
		"error occurred while generating",
		"temporarily", "backend error", "server had an error", "busy", "capacity", "degraded*",
		"currently loading", "not ready", "failed to load", "error loading", "unable to process",
		"could not load", "couldn t load", "unable to load"}, // the model or its engine did not load
	kInvalid: {"invalid*", "malformed*", "unsupported*", "validat*", "unprocessabl*", "unrecogni*", "incorrect*",
		"parameter*", "deserializ*", "bad request", "not supported", "must be", "is required", "required",
		"missing", "unknown parameter", "alternat*", "too short", "only supports", "only support",
		"must not be empty", "must not be null", "must not be blank", "must not be none", "cannot be empty",
		"can t be empty", "should not be empty", // "contents must not be empty"
		"not provided"}, // "LLM Provider NOT provided"
	kEOF:    {"eof"},
	kSchema: {"validation error", "validation errors", "json invalid"},
	// A hedge opens a guess: "to see if the prompt was blocked", "you may need to load the
	// model with a larger context length". The words after it (see [hedgeWords]) report nothing.
	kHedge: {"if", "whether", "might", "may need", "may be", "may have",
		// a list of guessed causes: "This usually means the model is overloaded, the context is too large"
		"usually means", "often means", "can mean", "could be", "possible cause", "possible causes", "likely cause",
		// a guessed cause ("(possible rate limit)"; see [notGuess]) or a list of them ("either
		// still processing, was cancelled, or censored")
		"possible", "possibly", "perhaps", "maybe", "probably", "either",
		// advice names a thing to look at, not what failed: "Please make sure your account has a
		// valid credit card"
		"check your", "please ensure", "ensure that your", "make sure"},

	kBelow:     {"less than", "fewer than", "at most", "no more than", "no longer than"},
	kTruncWord: {"truncat*", "incomplete"},
	kReply:     {"response*", "reply", "replies", "answer*", "completion*", "content block", "tool call"},
	kShortTime: {"per minute", "per min", "per second", "per hour", "tpm", "rpm", "qps", "itpm", "otpm"},
	kCarried:   {"content", "text", "parts", "part", "candidates", "choices"},
	kState: {"high traffic", "high demand", "heavy load", "high load", "overloaded", "model busy", "model is busy", "service busy", "service is busy", "system busy",
		"system is busy", "engine busy", "engine is busy", "degraded", "out of capacity", "capacity exceeded", "failed to load", "error loading",
		"engine dead", "while running the model", "currently loading", "not ready", "temporarily unavailable",
		"server is busy", "system capacity",
		"model is unloaded", "model was unloaded", "model unloaded",
		// a generation the model or its server botched: Gemini's MALFORMED_FUNCTION_CALL and
		// UNEXPECTED_TOOL_CALL, TGI's IncompleteGeneration
		"malformed function call", "unexpected tool call", "incomplete generation"},
	kResource: {"insufficient system resource*", "insufficient resource*", "out of memory", "oom",
		"not enough memory"},
}

// emptyPhrases are the ways of saying an answer held nothing: "no output", "empty response",
// "response is empty", "without sending any chunks", "none were returned".
func emptyPhrases() []string {
	out := []string{"none were returned", "none was returned", "returned nothing", "or empty", "empty or",
		"usable output", "usable content", "usable response", // "before returning usable output"
		"at least one candidate", "at least one choice", "at least one completion", // "Expected at least one candidate"
		"returned empty", "returned an empty", "no generations", "no completions", "no outputs",
		"ended without producing", // "stream ended without producing a ChatCompletionMessage"
		"ended without content", "ended without any content", "without valid content",
		"no messages", "no choice",
		"cannot both be empty",
		"stopped without producing", "without producing an answer", "without producing a response"} // "model output must contain either output text or tool calls, these cannot both be empty" // "Streamed response ended without content or tool calls"
	for _, v := range []string{"did not produce", "didn t produce", "did not return", "didn t return",
		"does not return", "doesn t return",
		"did not provide", "didn t provide",
		"didn t manage to produce", "did not manage to produce", "failed to produce"} {
		for _, n := range []string{"a reply", "a response", "an answer", "a completion", "any output", "any content", "any data",
			"any assistant message", "any assistant messages"} {
			out = append(out, v+" "+n)
		}
	}
	for _, w := range []string{"output", "response", "content", "completion", "reply", "text", "result",
		"message", "choices", "candidates", "object", "chunks", "generation", "events"} {
		out = append(out, "no "+w, "empty "+w, w+" is empty", w+" was empty", w+" empty", "without sending any "+w, "without receiving any "+w,
			"without producing any "+w)
	}
	return out
}

// lexEntry is a word, a phrase or a stem of the lexicon with its kinds. A word's or a phrase's
// text ends in a space, so that it matches whole words only; a stem's does not.
type lexEntry struct {
	text string
	kind kind
}

// vocab is the lexicon indexed for one pass over the words: every entry under the first three
// bytes of its text (the whole first word when it is shorter), so that one lookup per word of
// the text finds every entry that can start there.
var vocab = buildVocabulary(lexicon)

// vocabKey is the key of an entry, or of a word of the text, in vocab.
func vocabKey(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 && i < 3 {
		return s[:i]
	}
	return s[:min(3, len(s))]
}

func buildVocabulary(lex map[kind][]string) map[string][]lexEntry {
	v := map[string][]lexEntry{}
	for k, list := range lex {
		for _, s := range list {
			text, isStem := strings.CutSuffix(s, "*")
			if !isStem {
				text += " "
			} else if len(text) < 3 {
				panic(fmt.Sprintf("termination: stem %q is shorter than three bytes", text))
			}
			key := vocabKey(text)
			v[key] = mergeEntry(v[key], text, k)
		}
	}
	return v
}

func mergeEntry(list []lexEntry, text string, k kind) []lexEntry {
	for i := range list {
		if list[i].text == text {
			list[i].kind |= k
			return list
		}
	}
	return append(list, lexEntry{text, k})
}
