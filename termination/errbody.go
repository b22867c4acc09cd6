package termination

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// ErrorBody is what a provider's error response says, read from whatever shape it arrived in.
// It is the one error-body reader of stopgate: [ParseErrorBody] and [Classify] read bodies with
// it, and so does the toolcall package.
//
// Where an error wraps another (a proxy's message holding the upstream body, a JSON string
// holding JSON, an SDK's prose prefix before the object), Message, Type, Code and Generation
// are the innermost ones found: the innermost error is the most specific. Every message, type
// and code found on the way is kept as well, outermost first, for the classifier.
type ErrorBody struct {
	// Message is the provider's human-readable message.
	Message string
	// Type and Code are the error's type and code (a number is kept as its decimal text).
	Type, Code string
	// Status is the HTTP status the body states (error.code 429, status_code 503); zero for
	// none.
	Status int
	// RetryAfter is the delay the body asks for (a Google RetryInfo retryDelay, or prose such as
	// "Please try again in 4.77s"); zero when it names none.
	RetryAfter time.Duration
	// Upstream is the upstream provider a gateway names (OpenRouter's metadata.provider_name).
	Upstream string
	// Generation is error.failed_generation, the model's own output a provider kept (Groq);
	// HasGeneration tells an empty one from an absent one. It is never read as the provider's
	// word: the classifier does not look at it.
	Generation    string
	HasGeneration bool

	texts  []string // every message found, outermost first
	codes  []string // every type, code, status and reason found
	quotas []string // the quota ids and metrics of a Google QuotaFailure
	object bool     // an error object was read (JSON or a rendering of one)
	// inMessage: the body was read from the error's message (an SDK's "Error code: 400 - {…}"),
	// so the message's objects are in texts and codes already.
	inMessage bool
}

// found reports whether anything at all was read.
func (e ErrorBody) found() bool {
	return e.Message != "" || e.Type != "" || e.Code != "" || e.HasGeneration
}

// over returns e with every field inner has replaced by inner's, and inner's texts and codes
// kept after e's.
func (e ErrorBody) over(inner ErrorBody) ErrorBody {
	if inner.Message != "" {
		e.Message = inner.Message
	}
	if inner.Type != "" {
		e.Type = inner.Type
	}
	if inner.Code != "" {
		e.Code = inner.Code
	}
	if inner.HasGeneration {
		e.Generation, e.HasGeneration = inner.Generation, true
	}
	if e.Status == 0 {
		e.Status = inner.Status
	}
	if e.RetryAfter == 0 {
		e.RetryAfter = inner.RetryAfter
	}
	if e.Upstream == "" {
		e.Upstream = inner.Upstream
	}
	e.texts = merge(e.texts, inner.texts)
	e.codes = merge(e.codes, inner.codes)
	e.quotas = append(e.quotas, inner.quotas...)
	e.object = e.object || inner.object
	return e
}

// merge is appendNew(dst, add...), without a copy when dst is empty.
func merge(dst, add []string) []string {
	if len(dst) == 0 {
		return add
	}
	return appendNew(dst, add...)
}

// appendNew appends the non-empty strings of add that dst does not hold yet.
func appendNew(dst []string, add ...string) []string {
next:
	for _, s := range add {
		if s == "" {
			continue
		}
		for _, d := range dst {
			if d == s {
				continue next
			}
		}
		dst = append(dst, s)
	}
	return dst
}

const (
	// maxBodyDepth bounds how many wrappers (a JSON string holding JSON, a proxy's message
	// holding the upstream body) are opened.
	maxBodyDepth = 4
	// maxEmbeddedTries bounds the '{' positions tried when looking for JSON inside prose.
	maxEmbeddedTries = 32
	// maxPlainMessage bounds the Message taken from a plain-text body, so an HTML error page
	// does not become an error string.
	maxPlainMessage = 1 << 10
)

// ReadErrorBody reads an error body in any of the shapes seen in the wild, and never fails:
//
//   - OpenAI and the OpenAI-compatible family: {"error":{"message","type","param","code"}};
//     Azure adds error.innererror.code; Groq keeps the model's output in failed_generation.
//   - Anthropic: {"type":"error","error":{"type","message"}}.
//   - Google: {"error":{"code","message","status","details"}}, also inside an array as
//     streamed; details carry reasons, a RetryInfo retryDelay and QuotaFailure ids.
//   - OpenRouter: the upstream's own body in error.metadata.raw, read as a nested body.
//   - vLLM, Mistral, Cohere, Bedrock, Ollama: a top-level message, type, code, object or
//     __type; Ollama's {"error":"…"}; FastAPI's {"detail":…}; {"errors":[{"message"}]}.
//   - An SSE error event, JSON after an SDK's prose prefix ("Error code: 400 - {…}"), a JSON
//     string holding JSON, Python's and JavaScript's renderings of the object.
//   - Anything else is plain text, whose trimmed text (at most 1 KiB) is the Message.
func ReadErrorBody(body string) ErrorBody {
	e := readText(body, 0)
	if e.RetryAfter == 0 {
		for _, t := range e.texts {
			if d := retryAfterIn(t); d > 0 {
				e.RetryAfter = d
				break
			}
		}
	}
	return e
}

// readText reads one body, or a text found inside one, depth wrappers deep.
func readText(s string, depth int) ErrorBody {
	s = strings.TrimSpace(s)
	if s == "" || depth > maxBodyDepth {
		return ErrorBody{}
	}
	if e, ok := readJSON(s, depth); ok {
		// JSON is data: what its error fields say, or nothing. Its key names are never prose.
		return e
	}
	if strings.IndexByte(s, '{') >= 0 {
		if e := readEmbedded(s, depth); e.found() {
			return withEventType(e, s)
		}
	}
	if e := scrape(s); e.found() {
		e = withEventType(e, s)
		if strings.ContainsRune(e.Message, '{') {
			if inner := readText(e.Message, depth+1); inner.found() {
				e = e.over(inner)
			}
		}
		return e
	}
	if strings.Contains(s, `\"`) {
		u := unescapeLoose(s)
		// Worth it only when the unescaped text held an error object, not just more text.
		if e := readText(u, depth+1); e.found() && e.object {
			return e
		}
	}
	m := s // plain text, cut on a rune boundary at maxPlainMessage bytes
	if len(m) > maxPlainMessage {
		m = strings.ToValidUTF8(m[:maxPlainMessage], "") + "…"
	}
	return ErrorBody{Message: m, texts: []string{m}}
}

// readJSON reads s when it is one JSON value: an object, a string holding a body, or an array
// whose first readable element is the error (Gemini's stream). ok is false when it is not JSON.
func readJSON(s string, depth int) (ErrorBody, bool) {
	r := jsonReader{s: s}
	var o errorObject
	var list []errorObject
	var str string
	switch s[0] {
	case '{':
		o.decode(&r, 0)
	case '"':
		str = r.str(true)
	case '[':
		r.elements(0, func() {
			if r.peek() != '{' {
				r.skip(1)
				return
			}
			list = append(list, errorObject{})
			list[len(list)-1].decode(&r, 1)
		})
	default:
		return ErrorBody{}, false
	}
	if r.peek(); r.bad || r.i != len(s) {
		return ErrorBody{}, false
	}
	switch s[0] {
	case '{':
		return o.read(depth), true
	case '"':
		return readText(str, depth+1), true
	}
	var first ErrorBody // the first element that says anything, else the first
	for i := range list {
		e := list[i].read(depth + 1)
		if e.found() {
			return e, true
		}
		if i == 0 {
			first = e
		}
	}
	return first, true
}

// errorObject is one error object, in the union of the providers' shapes; every member is read
// as text, whatever a provider wrote it as ([jsonReader.text]).
type errorObject struct {
	Message, Detail, Type, Code, Status, StatusCode, AWSType, ErrorCode, Object, Param, Reason string
	// Name is a serialized exception's class name (a JavaScript error's {"name": "McpError"}).
	Name string
	// InnerCode is Azure's innererror.code; BaseCode and BaseMsg are MiniMax's base_resp
	// status, on a 200 response as well.
	InnerCode, BaseCode, BaseMsg string
	// Error is the nested error object (OpenAI, Anthropic, Google and their kin), ErrorText the
	// error when it is a string (Ollama); Data an event's data holding the error.
	Error, Data *errorObject
	ErrorText   string
	Errors      []errorObject
	// Details are Google's ErrorInfo reasons, RetryInfo delays and QuotaFailure ids.
	Details []googleDetail
	// OpenRouter's metadata: the upstream's raw body, its name and its code.
	MetaRaw, MetaProvider, MetaCode string
	// Generation is Groq's failed_generation: a string, or the JSON as it came.
	Generation    string
	HasGeneration bool
	// Other are the strings under keys that name a message or an error but no envelope's member
	// ("html-message", "streamed_data", "errorMsg"), read only when nothing else is there.
	Other []string
}

// messageKey reports whether a member's key names a message, an error or data.
func messageKey(key string) bool {
	return strings.Contains(key, "message") || strings.Contains(key, "msg") || strings.Contains(key, "error") ||
		strings.Contains(key, "data")
}

type googleDetail struct {
	Reason, RetryDelay string
	Quotas             []string
}

// decodeErrors reads a list of error objects, r at its '[', into o.Errors.
func (o *errorObject) decodeErrors(r *jsonReader, depth int) {
	r.elements(depth, func() {
		o.Errors = append(o.Errors, errorObject{})
		o.Errors[len(o.Errors)-1].decode(r, depth+1)
	})
}

// decode reads one error object, r at its '{': the members an error object has, matched
// case-insensitively as encoding/json matches them; the rest are skipped.
func (o *errorObject) decode(r *jsonReader, depth int) {
	r.members(depth, func(key string) {
		var dst *string
		switch key {
		case "message", "errormessage": // errorMessage: AWS Lambda, the AWS SDK for JavaScript
			dst = &o.Message
		case "detail": // FastAPI (a list of objects), some gateways
			dst = &o.Detail
		case "type":
			dst = &o.Type
		case "code":
			dst = &o.Code
		case "status":
			dst = &o.Status
		case "status_code", "statuscode":
			dst = &o.StatusCode
		case "__type", "errortype":
			dst = &o.AWSType
		case "error_code":
			dst = &o.ErrorCode
		case "object":
			dst = &o.Object
		case "param":
			dst = &o.Param
		case "reason": // Google's errors[].reason
			dst = &o.Reason
		case "name":
			dst = &o.Name
		case "error", "err", "data", "response", "cause": // err: a gateway's log entry; response: Tencent Cloud's {"Response":{"Error":{…}}}, a failed Responses event; cause: Node's error cause
			if r.peek() == '"' && (key == "error" || key == "err") {
				o.ErrorText = cmp.Or(o.ErrorText, strings.TrimSpace(r.str(true)))
			} else if r.peek() == '[' && key == "error" {
				// A list under "error" (Cloudflare AI Gateway's [{"code":2005,"message":…}]) is
				// read as "errors" is.
				o.decodeErrors(r, depth)
			} else if r.peek() != '{' {
				r.skip(depth)
			} else if n := new(errorObject); key == "error" || key == "err" {
				n.decode(r, depth+1)
				o.Error = cmp.Or(o.Error, n)
			} else {
				n.decode(r, depth+1)
				o.Data = n
			}
		case "errors":
			o.decodeErrors(r, depth)
		case "details":
			r.elements(depth, func() {
				var d googleDetail
				r.members(depth+1, func(k string) {
					switch k {
					case "reason":
						d.Reason = r.text(depth + 1)
					case "retrydelay":
						d.RetryDelay = r.text(depth + 1)
					case "metadata": // an ErrorInfo's quota_limit and quota_limit_value
						r.members(depth+1, func(k string) {
							switch k {
							case "quota_limit", "quota_limit_value":
								d.Quotas = append(d.Quotas, k+" "+r.text(depth+2))
							default:
								r.skip(depth + 2)
							}
						})
					case "violations":
						r.elements(depth+1, func() {
							r.members(depth+2, func(k string) {
								if k == "quotaid" || k == "quotametric" {
									d.Quotas = append(d.Quotas, r.text(depth+2))
								} else {
									r.skip(depth + 2)
								}
							})
						})
					default:
						r.skip(depth + 1)
					}
				})
				o.Details = append(o.Details, d)
			})
		case "headers": // an event stream's exception type, as a wrapper rendered the headers
			r.members(depth, func(k string) {
				if k == ":exception-type" || k == "x-amzn-errortype" {
					o.AWSType = cmp.Or(o.AWSType, r.text(depth+1))
				} else {
					r.skip(depth + 1)
				}
			})
		case "innererror", "base_resp", "metadata":
			r.members(depth, func(k string) {
				var dst *string
				switch key + "." + k {
				case "innererror.code":
					dst = &o.InnerCode
				case "base_resp.status_code":
					dst = &o.BaseCode
				case "base_resp.status_msg":
					dst = &o.BaseMsg
				case "metadata.raw":
					dst = &o.MetaRaw
				case "metadata.provider_name":
					dst = &o.MetaProvider
				case "metadata.provider_error_code":
					dst = &o.MetaCode
				}
				if dst == nil {
					r.skip(depth + 1)
				} else {
					*dst = r.text(depth + 1)
				}
			})
		case "failed_generation":
			switch start := r.i; r.peek() {
			case '"':
				o.Generation, o.HasGeneration = r.str(true), true
			case 'n':
				r.skip(depth)
			default:
				r.skip(depth)
				o.Generation, o.HasGeneration = strings.TrimSpace(r.s[start:r.i]), true
			}
		default:
			if r.peek() == '"' && len(o.Other) < 4 && messageKey(key) {
				o.Other = append(o.Other, r.str(true)) // "html-message", "streamed_data", "errorMsg"
			} else {
				r.skip(depth)
			}
		}
		if dst != nil {
			*dst = cmp.Or(*dst, r.text(depth))
		}
	})
}

// jsonReader reads one JSON text, strictly enough to tell JSON from prose, and takes from it
// only what the caller asks for: each value is read as text or skipped, never built into a
// tree, and a string without escapes is a slice of the input. After a syntax error bad is set
// and every read returns nothing.
type jsonReader struct {
	s   string
	i   int
	bad bool
}

// maxJSONDepth bounds the nesting a jsonReader follows; deeper is read as not JSON.
const maxJSONDepth = 64

func (r *jsonReader) fail() { r.bad, r.i = true, len(r.s) }

// peek skips white space and returns the next byte; 0 at the end.
func (r *jsonReader) peek() byte {
	for ; r.i < len(r.s); r.i++ {
		if c := r.s[r.i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// str reads a string, r at its opening quote; decoded, when asked, by encoding/json if it
// holds an escape.
func (r *jsonReader) str(decode bool) string {
	start, escaped := r.i, false
	for j := start + 1; j < len(r.s); j++ {
		switch c := r.s[j]; {
		case c == '"':
			r.i = j + 1
			if !escaped || !decode {
				return r.s[start+1 : j]
			}
			var out string
			if json.Unmarshal([]byte(r.s[start:j+1]), &out) != nil {
				r.fail()
			}
			return out
		case c == '\\':
			escaped = true
			j++
		case c < ' ':
			r.fail()
			return ""
		}
	}
	r.fail()
	return ""
}

// members reads an object, calling member with each key, lower-cased, when r is at its value;
// member reads or skips the value. A value that is not an object is skipped.
func (r *jsonReader) members(depth int, member func(key string)) {
	r.list(depth, '{', '}', func() {
		if r.peek() != '"' {
			r.fail()
			return
		}
		key := strings.ToLower(r.str(true))
		if r.peek() != ':' {
			r.fail()
			return
		}
		r.i++
		member(key)
	})
}

// elements reads an array, calling element when r is at each element; element reads or skips
// it. A value that is not an array is skipped.
func (r *jsonReader) elements(depth int, element func()) { r.list(depth, '[', ']', element) }

func (r *jsonReader) list(depth int, open, close byte, item func()) {
	if r.peek() != open {
		r.skip(depth)
		return
	}
	if depth > maxJSONDepth {
		r.fail()
		return
	}
	r.i++
	if r.peek() == close {
		r.i++
		return
	}
	for !r.bad {
		item()
		switch r.peek() {
		case ',':
			r.i++
		case close:
			r.i++
			return
		default:
			r.fail()
		}
	}
}

// skip reads one value and drops it.
func (r *jsonReader) skip(depth int) {
	switch r.peek() {
	case '"':
		r.str(false)
	case '{':
		r.members(depth+1, func(string) { r.skip(depth + 1) })
	case '[':
		r.elements(depth+1, func() { r.skip(depth + 1) })
	default:
		r.literal()
	}
}

// literal reads a number, true, false or null, and returns it as written ("" for null).
func (r *jsonReader) literal() string {
	start := r.i
	for r.i < len(r.s) && strings.IndexByte("+-.0123456789Eaeflnrstu", r.s[r.i]) >= 0 {
		r.i++
	}
	switch lit := r.s[start:r.i]; {
	case lit == "null":
		return ""
	case lit == "true", lit == "false", lit != "" && (lit[0] == '-' || '0' <= lit[0] && lit[0] <= '9'):
		return lit
	}
	r.fail()
	return ""
}

// text reads any value as text: a string as it is (trimmed), a number or boolean as written, a
// list as its elements' texts joined by "; ", an object as its msg, message or detail.
func (r *jsonReader) text(depth int) string {
	switch r.peek() {
	case '"':
		return strings.TrimSpace(r.str(true))
	case '{':
		var msg, message, detail string
		r.members(depth+1, func(k string) {
			switch k {
			case "msg":
				msg = r.text(depth + 1)
			case "message":
				message = r.text(depth + 1)
			case "detail":
				detail = r.text(depth + 1)
			default:
				r.skip(depth + 1)
			}
		})
		return cmp.Or(msg, message, detail)
	case '[':
		var parts []string
		r.elements(depth+1, func() {
			if t := r.text(depth + 1); t != "" {
				parts = append(parts, t)
			}
		})
		return strings.Join(parts, "; ")
	}
	return r.literal()
}

// read reads the object and whatever it wraps.
func (o *errorObject) read(depth int) ErrorBody {
	var own ErrorBody
	own.object = true
	own.Message = cmp.Or(o.Message, o.Detail)
	typ, awsType, code := o.Type, o.AWSType, o.Code
	if o.BaseCode != "" && o.BaseCode != "0" {
		own.Message = cmp.Or(own.Message, o.BaseMsg)
		code = cmp.Or(code, o.BaseCode)
	}
	if typ == "error" {
		typ = "" // Anthropic's constant envelope type
	}
	own.Type = cmp.Or(typ, awsType)
	own.Code = code
	if n := statusNumber(code); n != 0 {
		own.Status = n
		own.Code = ""
	}
	status := o.Status
	if own.Status == 0 {
		own.Status = cmp.Or(statusNumber(status), statusNumber(o.StatusCode))
	}
	own.codes = appendNew(nil, typ, awsType, code, o.ErrorCode)
	if strings.HasSuffix(o.Name, "Error") || strings.HasSuffix(o.Name, "Exception") {
		own.codes = appendNew(own.codes, o.Name) // a class name; any other "name" is a model's, a tool's, a user's
	}
	if statusNumber(status) == 0 {
		if own.Type == "" {
			own.Type = status // Google's status, RESOURCE_EXHAUSTED
		}
		own.codes = appendNew(own.codes, status)
	}
	own.Generation, own.HasGeneration = o.Generation, o.HasGeneration
	own.codes = appendNew(own.codes, o.InnerCode)
	for _, d := range o.Details {
		own.codes = appendNew(own.codes, d.Reason)
		own.Code = cmp.Or(own.Code, d.Reason)
		if dl, ok := parseDelay(d.RetryDelay); ok && own.RetryAfter == 0 {
			own.RetryAfter = dl
		}
		own.quotas = appendNew(own.quotas, d.Quotas...)
	}
	for i := range o.Errors {
		own.Message = cmp.Or(own.Message, o.Errors[i].Message)
	}
	own.texts = appendNew(nil, own.Message)
	for i := range o.Errors {
		e := &o.Errors[i]
		own.texts = appendNew(own.texts, e.Message)
		own.codes = appendNew(own.codes, e.Code, e.Type, e.Reason)
	}

	var inner ErrorBody
	switch nested := cmp.Or(o.Error, o.Data); {
	case o.ErrorText != "":
		if own.Message == "" && !strings.ContainsRune(o.ErrorText, '{') {
			own.Message = o.ErrorText
			own.texts = appendNew(own.texts, o.ErrorText)
		} else {
			inner = readText(o.ErrorText, depth+1)
		}
	case nested != nil && (nested != o.Data || own.Message == "") && depth < maxBodyDepth:
		inner = nested.read(depth + 1)
	case own.Message == "" && own.Type == "" && own.Code == "" && depth < maxBodyDepth:
		// No member of an error envelope: a message under a name of its own, read as a body.
		for _, t := range o.Other {
			if inner = readText(t, depth+1); inner.found() {
				break
			}
		}
	}
	if strings.ContainsRune(own.Message, '{') {
		if e := readText(own.Message, depth+1); e.found() && e.Message != own.Message {
			inner = e.over(inner)
		}
	}
	own = own.over(inner)
	own.Upstream = cmp.Or(own.Upstream, o.MetaProvider)
	own.codes = appendNew(own.codes, o.MetaCode)
	if o.MetaRaw != "" && depth < maxBodyDepth {
		up := readText(o.MetaRaw, depth+1)
		own.texts = merge(own.texts, up.texts)
		own.codes = merge(own.codes, up.codes)
		own.quotas = append(own.quotas, up.quotas...)
		own.Type = cmp.Or(own.Type, up.Type)
		own.Code = cmp.Or(own.Code, up.Code)
		own.RetryAfter = cmp.Or(own.RetryAfter, up.RetryAfter)
	}
	own.object = own.found() // an object that says nothing is not an error object
	return own
}

// statusNumber is s as an HTTP status when it is a three-digit number in [100, 600).
func statusNumber(s string) int {
	if len(s) != 3 {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n >= 600 {
		return 0
	}
	return n
}

// readEmbedded finds the first JSON error object inside surrounding text (an SSE event, a
// client library's "Error code: 400 - {...}").
func readEmbedded(s string, depth int) ErrorBody {
	tries := 0
	for i := 0; i < len(s) && tries < maxEmbeddedTries; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		r := jsonReader{s: s, i: i}
		var o errorObject
		if o.decode(&r, 0); r.bad {
			continue
		}
		end := r.i
		if !o.envelope() {
			continue
		}
		if e := o.read(depth + 1); e.found() {
			// The prose around the object is the SDK's or the gateway's own: keep it too.
			e.texts = appendNew(e.texts, strings.TrimSpace(s[:i]+" "+s[end:]))
			return e
		}
		i = end - 1
	}
	return ErrorBody{}
}

// envelope reports whether an object found inside prose looks like an error, rather than an
// argument object the prose happens to quote: it has an error or a failed_generation, or a
// message with a type, code, status_code or param, or it is an "error" object.
func (o *errorObject) envelope() bool {
	if o.Error != nil || o.ErrorText != "" || o.HasGeneration {
		return true
	}
	return o.Message != "" && (o.Type != "" || o.Code != "" || o.StatusCode != "" || o.Param != "" || o.Object == "error") ||
		o.Message == "" && o.Detail != "" && o.Type == "" && o.Code == "" // FastAPI's {"detail": "Not Found"}
}

// withEventType returns e with the exception type an AWS event stream's headers give, where
// the text renders them (":exception-type': 'serviceUnavailableException'") and e has no type.
func withEventType(e ErrorBody, s string) ErrorBody {
	if e.Type != "" || !strings.Contains(s, "exception-type") {
		return e
	}
	if t, ok := scrapeField(s, "exception-type"); ok {
		e.Type = t
		e.codes = appendNew(e.codes, t)
	}
	return e
}

// scrape reads error fields out of text that is not JSON but renders the same object: Python's
// repr ({'error': {'code': 'tool_use_failed', ...}}) and JavaScript's (code: "tool_use_failed").
func scrape(s string) ErrorBody {
	var e ErrorBody
	e.Message, _ = scrapeField(s, "message")
	e.Type, _ = scrapeField(s, "type")
	e.Code, _ = scrapeField(s, "code")
	e.Generation, e.HasGeneration = scrapeField(s, "failed_generation")
	if e.found() {
		e.object = true
		e.texts = appendNew(nil, e.Message, s)
		e.codes = appendNew(nil, e.Type, e.Code)
	}
	return e
}

// scrapeField finds key used as a field name (optionally quoted, then ':' or '=') and returns
// the quoted string literal that follows it.
func scrapeField(s, key string) (string, bool) {
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], key)
		if k < 0 {
			return "", false
		}
		start := off + k
		off = start + len(key)
		if start > 0 && (isIdentByte(s[start-1]) || s[start-1] == '-' || s[start-1] == '.') {
			continue
		}
		j := off
		if j < len(s) && isIdentByte(s[j]) {
			continue
		}
		for j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '\\') {
			j++
		}
		j = skipSpace(s, j)
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			continue
		}
		j = skipSpace(s, j+1)
		if j >= len(s) || (s[j] != '"' && s[j] != '\'') {
			continue
		}
		if v, ok := readQuoted(s, j); ok {
			return v, true
		}
	}
	return "", false
}

// readQuoted decodes the string literal whose opening quote is s[i], accepting the escapes of
// JSON, Python and JavaScript.
func readQuoted(s string, i int) (string, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == q:
			return b.String(), true
		case c == '\\' && j+1 < len(s):
			j++
			switch e := s[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u', 'x':
				n := 4
				if e == 'x' {
					n = 2
				}
				if j+n < len(s) {
					if v, err := strconv.ParseUint(s[j+1:j+1+n], 16, 32); err == nil {
						b.WriteRune(rune(v))
						j += n
						continue
					}
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// unescapeLoose removes one level of backslash escaping, for a body that was logged as the
// contents of a string literal ("event: error\ndata: {\"error\":...}").
func unescapeLoose(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "\r", `\"`, `"`, `\\`, `\`, `\/`, "/", `\'`, "'")
	return r.Replace(s)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func skipSpace(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	return j
}

// retryAfterIn reads a provider's "try again in 4.77s" (OpenAI, Groq), "retry in 45.2s"
// (Gemini) or "retry after 20 seconds" out of a message, or the wait until a quota resets ("will
// reset after 8h44m7s"); zero when it says none.
func retryAfterIn(msg string) time.Duration {
	if !strings.Contains(msg, "try") && !strings.Contains(msg, "Try") && !strings.Contains(msg, "TRY") &&
		!strings.Contains(msg, "reset") {
		return 0 // every lead below holds "try" or "reset"; most messages hold neither, and need no lower-casing
	}
	lower := strings.ToLower(msg)
	for _, lead := range [...]string{"try again in ", "retry in ", "retry after ", "retry-after: ", "retrydelay\":\"",
		"will reset after ", "will reset in ", "resets after ", "resets in "} { // a quota's reset, not "connection reset after 30s"
		i := strings.Index(lower, lead)
		if i < 0 {
			continue
		}
		rest := lower[i+len(lead):]
		j := 0
		for j < len(rest) && strings.IndexByte("0123456789.hmsu", rest[j]) >= 0 {
			j++
		}
		tok := strings.TrimRight(rest[:j], ".")
		switch {
		case tok == "":
			continue
		case strings.HasPrefix(rest[j:], " second"), strings.HasPrefix(rest[j:], " sec"):
			tok += "s"
		case strings.HasPrefix(rest[j:], " minute"):
			tok += "m"
		case strings.HasPrefix(rest[j:], " hour"):
			tok += "h"
		case strings.HasPrefix(rest[j:], " millisecond"):
			tok += "ms"
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

// ParseRetryAfter reads a Retry-After header value: delay seconds ("7", "1.5") or an HTTP date,
// which is taken relative to now. ok is false for a value it cannot read, a date in the past,
// or a delay longer than a day.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return parseDelay(strconv.FormatFloat(secs, 'f', -1, 64) + "s")
	}
	// An HTTP date in the three formats RFC 9110 allows (IMF-fixdate, RFC 850, asctime), as
	// net/http's ParseTime reads them; the termination package stays free of net/http.
	for _, layout := range [...]string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			if d := t.Sub(now); d > 0 && d <= 24*time.Hour {
				return d, true
			}
			return 0, false
		}
	}
	return 0, false
}

// ParseErrorBody describes a provider's error response as an *APIError: provider and status as
// given, Body kept exactly as received, and Type, Code, Message and RetryAfter read from the
// body by [ReadErrorBody]. A status below 400 (zero for unknown, or 200 for an error that
// arrived inside a stream) gives way to the HTTP status the body states. The Retry-After header
// is the caller's to read ([ParseRetryAfter]).
func ParseErrorBody(provider string, status int, body string) *APIError {
	b := ReadErrorBody(body)
	e := &APIError{Provider: provider, Status: status, Body: body, Type: b.Type, Code: b.Code,
		Message: b.Message, RetryAfter: b.RetryAfter}
	if e.Status < 400 && b.Status >= 400 {
		e.Status = b.Status
	}
	// A gateway's message with the upstream's own after it: "Provider returned error
	// (Anthropic): prompt is too long: …".
	if len(b.texts) > 1 && b.Upstream != "" {
		if up := b.texts[len(b.texts)-1]; up != e.Message {
			e.Message += " (" + b.Upstream + "): " + up
		}
	}
	e.parsed, e.parsedFrom = &b, body
	return e
}
