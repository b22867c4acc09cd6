package termination

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseErrorBody describes a provider's error response as an *APIError: provider and status as
// given, Body kept exactly as received, and Type, Code, Message and RetryAfter read from the
// body. It never fails: a body it cannot read as JSON is taken as plain text, and an empty body
// leaves those fields empty. The result is what [Classify] reads best.
//
// The body shapes it reads, by provider:
//
//   - OpenAI and the OpenAI-compatible family (Azure, Groq, DeepSeek, xAI, Ollama's /v1, LM
//     Studio, llama.cpp): {"error":{"message","type","param","code"}}; Azure adds
//     error.innererror.code. Groq's tool_use_failed carries the model's own output in
//     error.failed_generation, which is deliberately never read: it is not the provider's word.
//   - Anthropic: {"type":"error","error":{"type","message"}}.
//   - Google (Gemini API and Vertex): {"error":{"code","message","status","details"}}, also
//     wrapped in an array as streamed. Type is the status ("INVALID_ARGUMENT"), Code the first
//     details reason ("API_KEY_INVALID"); a RetryInfo retryDelay becomes RetryAfter.
//   - OpenRouter: {"error":{"message":"Provider returned error","code",
//     "metadata":{"raw","provider_name"}}}. The upstream's own body in metadata.raw is the
//     carrier: its type and code fill Type and Code where OpenRouter has none, and its message
//     (or the raw text, when it is not JSON) is appended to Message ("Provider returned error
//     (Anthropic): prompt is too long: …").
//   - vLLM and Mistral: a top-level {"object":"error","message","type","code"}.
//   - Ollama's native API: {"error":"…"}; Cohere and Bedrock: {"message":"…"}.
//   - Anything else: {"detail":"…"} and {"errors":[{"message"}]}; then plain text, whose trimmed
//     text (at most 1 KiB of it) becomes Message.
//
// A status below 400 (zero for unknown, or 200 for an error that arrived inside a stream) is
// replaced by the HTTP status the body states, where it states one (error.code 429). RetryAfter
// is read from the body only (a Google RetryInfo, or prose such as "Please try again in 4.77s");
// the Retry-After header is the caller's to read.
func ParseErrorBody(provider string, status int, body string) *APIError {
	e := &APIError{Provider: provider, Status: status, Body: body}
	var f bodyFields
	f.read(body)
	if !f.json {
		e.Message = plainMessage(body)
		e.RetryAfter = retryAfterIn(e.Message)
		return e
	}
	e.Type = f.typ()
	e.Code = f.code()
	e.Message = f.message()
	if up := cmp.Or(f.upMessage, f.rawText); up != "" && up != e.Message {
		switch {
		case e.Message == "":
			e.Message = up
		case f.providerName != "":
			e.Message += " (" + f.providerName + "): " + up
		default:
			e.Message += ": " + up
		}
	}
	if n := f.status(); e.Status < 400 && n >= 400 {
		e.Status = n
	}
	if d, ok := parseDelay(f.retryDelay); ok {
		e.RetryAfter = d
	} else {
		e.RetryAfter = retryAfterIn(e.Message)
	}
	return e
}

// maxPlainMessage bounds the Message taken from a plain-text body, so an HTML error page does
// not become an error string.
const maxPlainMessage = 1 << 10

// plainMessage is the Message of a body that is not JSON: its trimmed text, cut on a rune
// boundary at maxPlainMessage bytes.
func plainMessage(body string) string {
	s := strings.TrimSpace(body)
	if len(s) <= maxPlainMessage {
		return s
	}
	cut := maxPlainMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// retryAfterIn reads a provider's "try again in 4.77s" (OpenAI, Groq), "retry in 45.2s"
// (Gemini) or "retry after 20 seconds" out of a message; zero when it says none. The leads and
// units are matched case-insensitively.
func retryAfterIn(msg string) time.Duration {
	if !isASCII(msg) {
		// Unicode case folding can make a lead ("RETRY İN" lowers to "retry in"). What it
		// returns has no ASCII capitals, so the ASCII lower-casing below changes nothing.
		msg = strings.ToLower(msg)
	}
	// lower is msg lower-cased byte for byte, on the stack for a usual message.
	var buf [1 << 10]byte
	var lower []byte
	if len(msg) <= len(buf) {
		lower = buf[:copy(buf[:], msg)]
	} else {
		lower = []byte(msg)
	}
	lowerASCII(lower)
	for _, lead := range [...]string{"try again in ", "retry in ", "retry after "} {
		i := bytes.Index(lower, []byte(lead))
		if i < 0 {
			continue
		}
		start := i + len(lead)
		j := start
		for j < len(lower) && strings.IndexByte("0123456789.hmsu", lower[j]) >= 0 {
			j++
		}
		tok := strings.TrimRight(strings.ToLower(msg[start:j]), ".")
		if bytes.HasPrefix(lower[j:], []byte(" second")) && tok != "" {
			tok += "s"
		}
		if d, ok := parseDelay(tok); ok {
			return d
		}
	}
	return 0
}

// parseDelay parses a Go-style duration ("45s", "2m52.8s", "6ms") between zero and a day.
func parseDelay(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 24*time.Hour {
		return 0, false
	}
	return d, true
}

// bodyFields is what the body reader found in an error body: the fields of every shape
// ParseErrorBody documents, each at its own path. For every field the first non-empty value in
// document order wins.
type bodyFields struct {
	// json reports that the body is a JSON object or array the reader could read.
	json bool

	errText                              string // "error": "…" (Ollama)
	errMessage, errType, errCode, errStr string // error.message, .type, .code, .status (string)
	errNum                               int    // error.code, .status or .status_code as an HTTP status
	reason                               string // error.details[].reason, error.errors[].reason (Google)
	retryDelay                           string // error.details[].retryDelay (Google RetryInfo)
	detailsCode                          string // error.details.error_code (Anthropic)
	innerCode                            string // error.innererror.code (Azure)
	raw, providerName, providerCode      string // error.metadata.raw, .provider_name, .provider_error_code (OpenRouter)
	topMessage, topType, topCode         string // message, type, code at the top level (vLLM, Mistral, Cohere, Bedrock)
	topNum                               int    // code or status at the top level, as an HTTP status
	awsType                              string // __type (AWS)
	msgDetail                            string // message.detail[].msg (Mistral validation errors)
	detail                               string // detail (FastAPI-style servers)
	errorsMessage, errorsCode            string // errors[].message, errors[].code

	// The first quota ids and metrics of a Google QuotaFailure.
	quota1, quota2, quota3 string

	// The upstream's body found in metadata.raw: its message, type and code when it is JSON,
	// else rawText holds it as prose.
	upMessage, upType, upCode, rawText string
}

// read fills f from body, then from the upstream body in metadata.raw.
func (f *bodyFields) read(body string) {
	if !f.scan(body) {
		return
	}
	if f.raw == "" {
		return
	}
	var up bodyFields
	if up.scan(f.raw) {
		f.upMessage, f.upType, f.upCode = up.message(), up.typ(), up.code()
	} else {
		f.rawText = strings.TrimSpace(f.raw)
	}
}

// scan reads body as JSON into f, and reports whether it was a JSON object or array.
func (f *bodyFields) scan(body string) bool {
	r := bodyReader{s: body}
	r.skipSpace() // JSON's whitespace, as strings.TrimLeft(body, " \t\r\n")
	if r.i >= len(body) || (body[r.i] != '{' && body[r.i] != '[') {
		return false
	}
	r.s, r.i = body[r.i:], 0
	if !r.value(f, 0) {
		*f = bodyFields{}
		return false
	}
	r.skipSpace()
	if r.i != len(r.s) {
		*f = bodyFields{}
		return false
	}
	f.json = true
	return true
}

// message is the provider's message, from the first shape that has one.
func (f *bodyFields) message() string {
	return cmp.Or(f.errMessage, f.errText, f.topMessage, f.msgDetail, f.detail, f.errorsMessage)
}

// typ is the provider's error type: OpenAI and Anthropic error.type, Google's status, AWS
// __type, a top-level type other than Anthropic's constant "error", or the upstream's type.
func (f *bodyFields) typ() string {
	top := f.topType
	if top == "error" {
		top = ""
	}
	return cmp.Or(f.errType, f.errStr, f.awsType, top, f.upType)
}

// code is the provider's error code: OpenAI error.code, Google's details reason, Anthropic's
// details.error_code, a top-level code, or the upstream's code.
func (f *bodyFields) code() string {
	return cmp.Or(f.errCode, f.reason, f.detailsCode, f.topCode, f.errorsCode, f.upCode, f.providerCode)
}

// status is the HTTP status the body states, zero when none.
func (f *bodyFields) status() int {
	if f.errNum != 0 {
		return f.errNum
	}
	return f.topNum
}

// codes lists every type, status and code string the body carries, for the classifier's
// structured evidence and text. Empty entries are allowed.
func (f *bodyFields) codes() [13]string {
	return [13]string{
		f.errType, f.errStr, f.errCode, f.reason, f.detailsCode, f.innerCode, f.providerCode,
		f.topType, f.topCode, f.awsType, f.errorsCode, f.upType, f.upCode,
	}
}

// maxBodyDepth bounds the nesting the body reader follows. An error body is a few levels
// deep; a body nested deeper is not one of the shapes above and is read as text.
const maxBodyDepth = 32

// bodyKey names the object keys the reader distinguishes; keyOther is every other key, and
// keyElem stands for an array element in a path.
type bodyKey uint8

const (
	keyOther bodyKey = iota
	keyElem
	keyError
	keyMessage
	keyType
	keyCode
	keyStatus
	keyStatusCode
	keyDetails
	keyReason
	keyViolations
	keyQuotaID
	keyQuotaMetric
	keyRetryDelay
	keyErrorCode
	keyErrors
	keyMetadata
	keyRaw
	keyProviderName
	keyProviderErrorCode
	keyInnerError
	keyObject
	keyDetail
	keyMsg
	keyAWSType
)

func bodyKeyOf(k string) bodyKey {
	switch k {
	case "error":
		return keyError
	case "message", "Message":
		return keyMessage
	case "type":
		return keyType
	case "code":
		return keyCode
	case "status":
		return keyStatus
	case "status_code":
		return keyStatusCode
	case "details":
		return keyDetails
	case "reason":
		return keyReason
	case "violations":
		return keyViolations
	case "quotaId":
		return keyQuotaID
	case "quotaMetric":
		return keyQuotaMetric
	case "retryDelay":
		return keyRetryDelay
	case "error_code":
		return keyErrorCode
	case "errors":
		return keyErrors
	case "metadata":
		return keyMetadata
	case "raw":
		return keyRaw
	case "provider_name":
		return keyProviderName
	case "provider_error_code":
		return keyProviderErrorCode
	case "innererror":
		return keyInnerError
	case "object":
		return keyObject
	case "detail":
		return keyDetail
	case "msg":
		return keyMsg
	case "__type":
		return keyAWSType
	}
	return keyOther
}

// bodySlot is where a value found at some path goes.
type bodySlot uint8

const (
	slotNone bodySlot = iota
	slotErrText
	slotErrMessage
	slotErrType
	slotErrCode // string or number
	slotErrStatus
	slotErrStatusCode // number only
	slotReason
	slotRetryDelay
	slotDetailsCode
	slotInnerCode
	slotRaw
	slotProviderName
	slotProviderCode
	slotTopMessage
	slotTopType
	slotTopCode // string or number
	slotTopStatus
	slotObject
	slotDetail
	slotAWSType
	slotMsgDetail
	slotErrorsMessage
	slotErrorsCode
	slotQuota
)

// slotOf maps a path (the keys from the top, keyElem for array elements) to its slot. A
// top-level array is read through: the Gemini stream's [{"error":…}] is the same error.
func slotOf(p []bodyKey) bodySlot {
	if len(p) > 0 && p[0] == keyElem {
		p = p[1:]
	}
	switch len(p) {
	case 1:
		switch p[0] {
		case keyError:
			return slotErrText
		case keyMessage:
			return slotTopMessage
		case keyType:
			return slotTopType
		case keyCode:
			return slotTopCode
		case keyStatus:
			return slotTopStatus
		case keyObject:
			return slotObject
		case keyDetail:
			return slotDetail
		case keyAWSType:
			return slotAWSType
		}
	case 2:
		if p[0] == keyError {
			switch p[1] {
			case keyMessage:
				return slotErrMessage
			case keyType:
				return slotErrType
			case keyCode:
				return slotErrCode
			case keyStatus:
				return slotErrStatus
			case keyStatusCode:
				return slotErrStatusCode
			}
		}
	case 3:
		switch {
		case p[0] == keyError && p[1] == keyMetadata:
			switch p[2] {
			case keyRaw:
				return slotRaw
			case keyProviderName:
				return slotProviderName
			case keyProviderErrorCode:
				return slotProviderCode
			}
		case p[0] == keyError && p[1] == keyInnerError && p[2] == keyCode:
			return slotInnerCode
		case p[0] == keyError && p[1] == keyDetails && p[2] == keyErrorCode:
			return slotDetailsCode
		case p[0] == keyErrors && p[1] == keyElem && p[2] == keyMessage:
			return slotErrorsMessage
		case p[0] == keyErrors && p[1] == keyElem && p[2] == keyCode:
			return slotErrorsCode
		}
	case 4:
		switch {
		case p[0] == keyError && (p[1] == keyDetails || p[1] == keyErrors) && p[2] == keyElem && p[3] == keyReason:
			return slotReason
		case p[0] == keyError && p[1] == keyDetails && p[2] == keyElem && p[3] == keyRetryDelay:
			return slotRetryDelay
		case p[0] == keyMessage && p[1] == keyDetail && p[2] == keyElem && p[3] == keyMsg:
			return slotMsgDetail
		}
	case 6:
		if p[0] == keyError && p[1] == keyDetails && p[2] == keyElem && p[3] == keyViolations &&
			p[4] == keyElem && (p[5] == keyQuotaID || p[5] == keyQuotaMetric) {
			return slotQuota
		}
	}
	return slotNone
}

// setString files a string value found at slot s; the first non-empty value wins.
func (f *bodyFields) setString(s bodySlot, v string) {
	if v == "" {
		return
	}
	var dst *string
	switch s {
	case slotErrText:
		dst = &f.errText
	case slotErrMessage:
		dst = &f.errMessage
	case slotErrType:
		dst = &f.errType
	case slotErrCode:
		dst = &f.errCode
	case slotErrStatus:
		dst = &f.errStr
	case slotReason:
		dst = &f.reason
	case slotRetryDelay:
		dst = &f.retryDelay
	case slotDetailsCode:
		dst = &f.detailsCode
	case slotInnerCode:
		dst = &f.innerCode
	case slotRaw:
		dst = &f.raw
	case slotProviderName:
		dst = &f.providerName
	case slotProviderCode:
		dst = &f.providerCode
	case slotTopMessage:
		dst = &f.topMessage
	case slotTopType:
		dst = &f.topType
	case slotTopCode:
		dst = &f.topCode
	case slotDetail:
		dst = &f.detail
	case slotAWSType:
		dst = &f.awsType
	case slotMsgDetail:
		dst = &f.msgDetail
	case slotErrorsMessage:
		dst = &f.errorsMessage
	case slotErrorsCode:
		dst = &f.errorsCode
	case slotQuota:
		// Separate fields rather than an array: storing into an array element through f
		// would make escape analysis move every bodyFields to the heap.
		switch {
		case f.quota1 == "":
			f.quota1 = v
		case f.quota2 == "":
			f.quota2 = v
		case f.quota3 == "":
			f.quota3 = v
		}
		return
	default: // slotObject, slotTopStatus, slotErrStatusCode: nothing to keep as text
		return
	}
	if *dst == "" {
		*dst = v
	}
}

// setNumber files a number literal found at slot s. An integer in [100, 600) in an error's or
// the top level's code or status is an HTTP status; any other number in a code slot is kept as
// the code's text (Mistral's and Cloudflare's numeric codes).
func (f *bodyFields) setNumber(s bodySlot, lit string) {
	var num *int
	switch s {
	case slotErrCode, slotErrStatus, slotErrStatusCode:
		num = &f.errNum
	case slotTopCode, slotTopStatus:
		num = &f.topNum
	case slotErrorsCode:
		f.setString(s, lit)
		return
	default:
		return
	}
	if n, err := strconv.Atoi(lit); err == nil && n >= 100 && n < 600 {
		if *num == 0 {
			*num = n
		}
		return
	}
	if s == slotErrCode || s == slotTopCode {
		f.setString(s, lit)
	}
}

// bodyReader is a strict JSON reader (RFC 8259 grammar) that decodes only the values
// bodyFields keeps and skips the rest without allocating. It exists because the classifier
// reads every body on the hot path, where encoding/json costs several microseconds a body.
//
// The fields it fills are passed to each method rather than kept in the reader, so escape
// analysis can keep them on the caller's stack.
type bodyReader struct {
	s    string
	i    int
	path [maxBodyDepth]bodyKey

	// quote is the next quote at or after some earlier position (len(s) for none), as
	// plainRun last found it: still right for any later position up to it.
	quote int
}

func (r *bodyReader) skipSpace() {
	if r.i < len(r.s) && r.s[r.i] > ' ' {
		return // the usual case: compact JSON
	}
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		default:
			return
		}
	}
}

// value reads one JSON value at r.i into f. Its path is r.path[:depth].
func (r *bodyReader) value(f *bodyFields, depth int) bool {
	r.skipSpace()
	if r.i >= len(r.s) {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.object(f, depth+1)
	case c == '[':
		return r.array(f, depth+1)
	case c == '"':
		slot := slotOf(r.path[:depth])
		v, ok := r.str(slot != slotNone)
		if ok && slot != slotNone {
			f.setString(slot, v)
		}
		return ok
	case c == '-' || ('0' <= c && c <= '9'):
		lit, ok := r.number()
		if ok {
			if slot := slotOf(r.path[:depth]); slot != slotNone {
				f.setNumber(slot, lit)
			}
		}
		return ok
	case c == 't':
		return r.literal("true")
	case c == 'f':
		return r.literal("false")
	case c == 'n':
		return r.literal("null")
	}
	return false
}

func (r *bodyReader) literal(lit string) bool {
	if !strings.HasPrefix(r.s[r.i:], lit) {
		return false
	}
	r.i += len(lit)
	return true
}

// object reads an object whose '{' is at r.i; its members' paths are one deeper.
func (r *bodyReader) object(f *bodyFields, depth int) bool {
	if depth > maxBodyDepth {
		return false
	}
	r.i++ // '{'
	r.skipSpace()
	if r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
		return true
	}
	for {
		r.skipSpace()
		if r.i >= len(r.s) || r.s[r.i] != '"' {
			return false
		}
		key, ok := r.str(true)
		if !ok {
			return false
		}
		r.skipSpace()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return false
		}
		r.i++
		r.path[depth-1] = bodyKeyOf(key)
		if !r.value(f, depth) {
			return false
		}
		r.skipSpace()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array whose '[' is at r.i; its elements' paths end in keyElem.
func (r *bodyReader) array(f *bodyFields, depth int) bool {
	if depth > maxBodyDepth {
		return false
	}
	r.i++ // '['
	r.skipSpace()
	if r.i < len(r.s) && r.s[r.i] == ']' {
		r.i++
		return true
	}
	r.path[depth-1] = keyElem
	for {
		if !r.value(f, depth) {
			return false
		}
		r.skipSpace()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string whose opening quote is at r.i. It validates the string either way, and
// decodes it only when want is set (without allocating when it has no escapes).
func (r *bodyReader) str(want bool) (string, bool) {
	start := r.i + 1
	escaped := false
	for i := start; i < len(r.s); {
		i = r.plainRun(i)
		if i >= len(r.s) {
			break
		}
		switch c := r.s[i]; {
		case c == '"':
			r.i = i + 1
			if !want {
				return "", true
			}
			if !escaped {
				return r.s[start:i], true
			}
			return unescapeJSON(r.s[start:i]), true
		case c == '\\':
			if i+1 >= len(r.s) {
				return "", false
			}
			switch r.s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(r.s) || !isHex4(r.s[i+2:i+6]) {
					return "", false
				}
				i += 6
			default:
				return "", false
			}
			escaped = true
		default: // a control character
			return "", false
		}
	}
	return "", false
}

// plainRun returns where the run of plain string content from i ends: at the first quote,
// backslash or control character (jsonStrSpecial), or at len(r.s).
//
// A short run (a key, a code) is settled within four words. A long one (a message) finds the
// next quote, and a backslash before it, with strings.IndexByte, and checks the bytes before
// them for control characters a word at a time. The quote's position is kept, so a string with
// many escapes is still searched once.
func (r *bodyReader) plainRun(i int) int {
	s := r.s
	for k := 0; k < 4; k++ {
		if i+8 > len(s) || jsonSpecialIn(loadString64(s[i:i+8])) {
			for i < len(s) && !jsonStrSpecial[s[i]] {
				i++
			}
			return i
		}
		i += 8
	}
	if r.quote < i {
		r.quote = len(s)
		if j := strings.IndexByte(s[i:], '"'); j >= 0 {
			r.quote = i + j
		}
	}
	end := r.quote
	if j := strings.IndexByte(s[i:end], '\\'); j >= 0 {
		end = i + j
	}
	return i + ctrlRun(s[i:end])
}

// jsonStrSpecial marks the bytes that end a run of plain string content: the closing quote, a
// backslash, and the control characters JSON forbids in a string.
var jsonStrSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// number reads a number at r.i and returns its literal text.
func (r *bodyReader) number() (string, bool) {
	s, i := r.s, r.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			return "", false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			return "", false
		}
	}
	lit := s[r.i:i]
	r.i = i
	return lit, true
}

func isHex4(s string) bool {
	for i := range 4 {
		if hexVal(s[i]) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// hex4 decodes four hex digits, or returns -1.
func hex4(s string) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for i := range 4 {
		v := hexVal(s[i])
		if v < 0 {
			return -1
		}
		r = r<<4 | v
	}
	return r
}

// unescapeJSON decodes the escapes of a validated string body, as encoding/json does: a \u
// surrogate pair becomes one rune and a lone surrogate becomes U+FFFD. The runs between
// escapes are copied whole.
func unescapeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		j := strings.IndexByte(s, '\\')
		if j < 0 || j+1 >= len(s) {
			b.WriteString(s) // no escape left (a lone final backslash is kept as it is)
			return b.String()
		}
		b.WriteString(s[:j])
		s = s[j:] // s[0] is the backslash, s[1] the escape
		switch s[1] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if len(s) < 6 {
				b.WriteRune(unicode.ReplacementChar)
				return b.String()
			}
			r := hex4(s[2:6])
			s = s[6:]
			if r < 0 {
				r = unicode.ReplacementChar
			} else if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					r2 = hex4(s[2:6])
				}
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					r = dec
					s = s[6:]
				} else {
					r = unicode.ReplacementChar
				}
			}
			b.WriteRune(r)
			continue
		default: // '"', '\\', '/'
			b.WriteByte(s[1])
		}
		s = s[2:]
	}
}
