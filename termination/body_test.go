package termination

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// updateClassify rewrites the golden files under testdata/classify. It is not called -update so
// that it cannot collide with another golden flag of this package's tests.
var updateClassify = flag.Bool("update-classify", false, "rewrite testdata/classify golden files")

// TestParseErrorBody pins the fields read from each provider's body shape.
func TestParseErrorBody(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider string
		status   int
		body     string
		want     APIError // Provider, Status and Body are checked separately
	}{
		{"openai", "openai", 400,
			`{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			APIError{Type: "invalid_request_error", Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens."}},
		{"openai null code", "openai", 429,
			`{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":null}}`,
			APIError{Type: "insufficient_quota", Message: "You exceeded your current quota."}},
		{"anthropic", "anthropic", 529,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
			APIError{Type: "overloaded_error", Message: "Overloaded"}},
		{"anthropic details error_code", "anthropic", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"m","details":{"error_code":"context_window_exceeded"}}}`,
			APIError{Type: "invalid_request_error", Code: "context_window_exceeded", Message: "m"}},
		{"google", "google", 400,
			`{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"x","reason":"API_KEY_INVALID"}]}}`,
			APIError{Type: "INVALID_ARGUMENT", Code: "API_KEY_INVALID", Message: "API key not valid."}},
		{"google array, retry info", "google", 429,
			`[{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"RetryInfo","retryDelay":"38s"}]}}]`,
			APIError{Type: "RESOURCE_EXHAUSTED", Message: "quota", RetryAfter: 38 * time.Second}},
		{"openrouter", "openrouter", 400,
			`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 5 > 4\"}}","provider_name":"Anthropic"}}}`,
			APIError{Type: "invalid_request_error", Message: "Provider returned error (Anthropic): prompt is too long: 5 > 4"}},
		{"openrouter plain raw, no provider name", "openrouter", 429,
			`{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"rate-limited upstream"}}}`,
			APIError{Message: "Provider returned error: rate-limited upstream"}},
		{"openrouter upstream code", "openrouter", 400,
			`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"m\",\"code\":\"context_length_exceeded\"}}"}}}`,
			APIError{Code: "context_length_exceeded", Message: "Provider returned error: m"}},
		{"status from the body", "openrouter", 200,
			`{"error":{"code":429,"message":"Rate limit exceeded"}}`,
			APIError{Status: 429, Message: "Rate limit exceeded"}},
		{"groq stream status_code", "groq", 0,
			`{"error":{"message":"m","type":"invalid_request_error","code":"tool_use_failed","status_code":400,"failed_generation":"rate limit"}}`,
			APIError{Status: 400, Type: "invalid_request_error", Code: "tool_use_failed", Message: "m"}},
		{"groq retry prose", "groq", 429,
			`{"error":{"message":"Rate limit reached. Please try again in 2m52.8s.","type":"tokens","code":"rate_limit_exceeded"}}`,
			APIError{Type: "tokens", Code: "rate_limit_exceeded", Message: "Rate limit reached. Please try again in 2m52.8s.", RetryAfter: 2*time.Minute + 52800*time.Millisecond}},
		{"ollama native", "ollama", 400, `{"error":"the input length exceeds the context length"}`,
			APIError{Message: "the input length exceeds the context length"}},
		{"vllm top level", "vllm", 400, `{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`,
			APIError{Type: "BadRequestError", Message: "m"}},
		{"mistral numeric-string code", "mistral", 400, `{"object":"error","message":"m","type":"invalid_request_message_error","param":null,"code":"3051"}`,
			APIError{Type: "invalid_request_message_error", Code: "3051", Message: "m"}},
		{"mistral numeric code", "mistral", 400, `{"object":"error","message":"m","type":"t","code":3051}`,
			APIError{Type: "t", Code: "3051", Message: "m"}},
		{"mistral validation", "mistral", 422, `{"object":"error","message":{"detail":[{"type":"missing","msg":"Field required"}]},"type":"invalid_request_error"}`,
			APIError{Type: "invalid_request_error", Message: "Field required"}},
		{"cohere", "cohere", 400, `{"id":"x","message":"too many tokens"}`, APIError{Message: "too many tokens"}},
		{"aws", "bedrock", 429, `{"__type":"ThrottlingException","message":"Too many requests"}`, APIError{Type: "ThrottlingException", Message: "Too many requests"}},
		{"azure", "azure", 400, `{"error":{"message":"m","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}`,
			APIError{Code: "content_filter", Message: "m"}},
		{"fastapi", "together", 404, `{"detail":"Not Found"}`, APIError{Message: "Not Found"}},
		{"errors list", "cloudflare", 400, `{"errors":[{"message":"m","code":7003}],"success":false}`, APIError{Code: "7003", Message: "m"}},
		{"escapes", "openai", 400, `{"error":{"message":"line\nquote\" tab\t \u00e9 \ud83d\ude00 \ud800 slash\/"}}`,
			APIError{Message: "line\nquote\" tab\t é 😀 \ufffd slash/"}},
		{"plain text", "proxy", 502, "  Bad Gateway\n", APIError{Message: "Bad Gateway"}},
		{"plain text retry", "proxy", 429, "Too many requests, retry after 20 seconds.", APIError{Message: "Too many requests, retry after 20 seconds.", RetryAfter: 20 * time.Second}},
		{"not json after all", "proxy", 500, `{"error": "unterminated`, APIError{Message: `{"error": "unterminated`}},
		{"json without known fields", "x", 500, `{"foo":{"bar":[1,2,3]}}`, APIError{}},
		{"json scalar is text", "x", 500, `"Internal Server Error"`, APIError{Message: `"Internal Server Error"`}},
		{"empty", "openai", 500, "", APIError{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseErrorBody(tc.provider, tc.status, tc.body)
			if got.Provider != tc.provider || got.Body != tc.body {
				t.Errorf("provider %q body %q not kept as given", got.Provider, got.Body)
			}
			wantStatus := tc.status
			if tc.want.Status != 0 {
				wantStatus = tc.want.Status
			}
			w := tc.want
			w.Provider, w.Status, w.Body = tc.provider, wantStatus, tc.body
			if *got != w {
				t.Errorf("ParseErrorBody\n got  %+v\n want %+v", *got, w)
			}
		})
	}
}

// TestParseErrorBodyLongText: a plain body becomes at most a kilobyte of Message, cut on a rune.
func TestParseErrorBodyLongText(t *testing.T) {
	body := strings.Repeat("é", 2000)
	got := ParseErrorBody("proxy", 502, body)
	if !utf8.ValidString(got.Message) || len(got.Message) > maxPlainMessage+len("…") || !strings.HasSuffix(got.Message, "…") {
		t.Errorf("Message %d bytes, valid %t", len(got.Message), utf8.ValidString(got.Message))
	}
	if got.Body != body {
		t.Error("Body must be kept whole")
	}
}

func TestRetryAfterIn(t *testing.T) {
	for msg, want := range map[string]time.Duration{
		"Please try again in 4.77s. Need more tokens?":    4770 * time.Millisecond,
		"Please try again in 120ms.":                      120 * time.Millisecond,
		"Please retry in 38.72s.":                         38720 * time.Millisecond,
		"retry after 20 seconds":                          20 * time.Second,
		"Please try again in 1h2m3s":                      time.Hour + 2*time.Minute + 3*time.Second,
		"Please try again later.":                         0,
		"try again in a moment":                           0,
		"try again in 0s":                                 0,
		"try again in 999h":                               0,
		"no hint here":                                    0,
		"try again in . then retry in 5s, once more":      5 * time.Second,
		"Rate limit reached. Please Try Again In 7s. Bye": 7 * time.Second,
	} {
		if got := retryAfterIn(msg); got != want {
			t.Errorf("retryAfterIn(%q) = %v, want %v", msg, got, want)
		}
	}
}

// clsFixture is one section of testdata/classify/bodies.txt.
type clsFixture struct {
	name, provider string
	status         int
	body           string
}

// clsReadFixtures reads testdata/classify/bodies.txt.
func clsReadFixtures(t testing.TB) []clsFixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "classify", "bodies.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []clsFixture
	var body []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].body = strings.Join(body, "\n")
		}
		body = nil
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"))
			if len(f) != 3 {
				t.Fatalf("bad section header %q", line)
			}
			status, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("bad status in %q: %v", line, err)
			}
			out = append(out, clsFixture{name: f[0], provider: f[1], status: status})
			continue
		}
		if len(out) == 0 {
			continue // the file's comment
		}
		body = append(body, line)
	}
	flush()
	return out
}

// TestParseErrorBodyGolden runs the fixture corpus through ParseErrorBody and Classify and
// compares with testdata/classify/bodies.golden.
func TestParseErrorBodyGolden(t *testing.T) {
	var b strings.Builder
	for _, f := range clsReadFixtures(t) {
		e := ParseErrorBody(f.provider, f.status, f.body)
		c := Classify(e)
		fmt.Fprintf(&b, "%s\n", f.name)
		fmt.Fprintf(&b, "\tstatus=%d type=%q code=%q retry_after=%v\n", e.Status, e.Type, e.Code, e.RetryAfter)
		fmt.Fprintf(&b, "\tmessage=%q\n", e.Message)
		fmt.Fprintf(&b, "\tclassify=%s provider=%q detail=%q arms=%q\n", c.Category, c.Provider, c.Detail, ContextOverflowArms(e))
		// The raw description classifies the same as the parsed one: one reader.
		raw := &APIError{Provider: f.provider, Status: f.status, Body: f.body}
		if rc := Classify(raw); rc.Category != c.Category {
			t.Errorf("%s: raw body classifies as %s, parsed as %s", f.name, rc.Category, c.Category)
		}
	}
	got := b.String()
	path := filepath.Join("testdata", "classify", "bodies.golden")
	if *updateClassify {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantBytes, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-classify to create it)", err)
	}
	if want := string(wantBytes); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("bodies.golden differs at line %d:\n got  %s\n want %s\n(rerun with -update-classify if the change is intended)", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("bodies.golden has %d lines, output %d", len(wl), len(gl))
	}
}

// oracleFields reads body the way bodyFields.scan does, but with encoding/json's tokenizer, so
// the hand-written reader can be checked against the standard library's grammar and unescaping.
// It shares the path rules (slotOf, setString, setNumber), which the table tests pin.
func oracleFields(body string) (bodyFields, bool) {
	s := strings.TrimLeft(body, " \t\r\n")
	if s == "" || (s[0] != '{' && s[0] != '[') || !json.Valid([]byte(s)) {
		return bodyFields{}, false
	}
	type frame struct {
		object    bool
		key       bodyKey
		expectKey bool
	}
	var f bodyFields
	var stack []frame
	path := func() []bodyKey {
		p := make([]bodyKey, len(stack))
		for i, fr := range stack {
			p[i] = keyElem
			if fr.object {
				p[i] = fr.key
			}
		}
		return p
	}
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bodyFields{}, false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if len(stack)+1 > maxBodyDepth {
					return bodyFields{}, false
				}
				stack = append(stack, frame{object: v == '{', expectKey: v == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				stack[n-1].key = bodyKeyOf(v)
				stack[n-1].expectKey = false
				continue
			}
			if slot := slotOf(path()); slot != slotNone {
				f.setString(slot, v)
			}
			valueDone()
		case json.Number:
			if slot := slotOf(path()); slot != slotNone {
				f.setNumber(slot, string(v))
			}
			valueDone()
		default:
			valueDone()
		}
	}
	f.json = true
	return f, true
}

// clsOracleCheck reports a difference between the body reader and the oracle.
func clsOracleCheck(t testing.TB, body string) {
	t.Helper()
	if !utf8.ValidString(body) {
		return // encoding/json rewrites invalid UTF-8; the reader keeps bytes as they are
	}
	var got bodyFields
	ok := got.scan(body)
	want, wantOK := oracleFields(body)
	if ok != wantOK || got != want {
		t.Errorf("body %q:\n reader %t %+v\n oracle %t %+v", body, ok, got, wantOK, want)
	}
}

// TestBodyReaderAgreesWithEncodingJSON checks the reader against encoding/json on the corpus and
// on inputs chosen for the grammar's corners.
func TestBodyReaderAgreesWithEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, `[]`, ` {"error" : { "message" : "m" } } `, `{"error":{"message":"a","message":"b"}}`,
		`{"error":{"message":""},"message":"top"}`, `{"error":"x","error":{"message":"y"}}`,
		`{"error":{"code":-0.5e+10}}`, `{"error":{"code":1E2}}`, `{"error":{"code":429.0}}`,
		`{"error":{"code":01}}`, `{"error":{"code":-}}`, `{"error":{"code":1.}}`, `{"error":{"code":.5}}`,
		`{"error":{"code":1e}}`, `{"code":99999999999999999999999}`, `{"code":true,"type":null}`,
		`{"error":{"message":"\u0041\u00e9\ud83d\ude00\udc00\ud800x\ud800\u0041"}}`,
		`{"error":{"message":"\x"}}`, `{"error":{"message":"\u12"}}`, "{\"error\":{\"message\":\"a\tb\"}}",
		`{"error":{"message":"a\/b\\c\"d\b\f\n\r\t"}}`, `{"e\u0072ror":{"message":"escaped key"}}`,
		`{"error":{"details":[{"reason":"R1"},{"reason":"R2"},{"violations":[{"quotaId":"a"},{"quotaMetric":"b"},{"quotaId":"c"},{"quotaId":"d"}]}]}}`,
		`[{"error":{"message":"first"}},{"error":{"message":"second"}}]`, `[[{"error":{"message":"nested"}}]]`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1,]`, `[1 2]`, `{"a":[}`, `{"a"`, `{`, `[`, `{"a":tru}`,
		`{"a":nul}`, `{"a":falsey}`, `{} {}`, `{}x`, `{"a":"b"}` + "\n\t ", strings.Repeat("[", 32) + strings.Repeat("]", 32),
		strings.Repeat("[", 33) + strings.Repeat("]", 33), strings.Repeat(`{"a":`, 32) + "1" + strings.Repeat("}", 32),
		strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33), "{\"error\":{\"message\":\"\x01\"}}",
	}
	for _, f := range clsReadFixtures(t) {
		inputs = append(inputs, f.body)
	}
	for _, in := range inputs {
		clsOracleCheck(t, in)
	}
}
