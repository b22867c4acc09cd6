package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stopgate/stopgate"
)

func TestOperations(t *testing.T) {
	_, ts := start(t, Options{})
	rateLimit := `{"provider":"openai","status":429,"body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}`
	overloaded := `{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}`
	failedRun := `{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p1","command":"go test ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:04:00Z","exit_code":1,"log_size":512}]}`
	tests := []struct {
		name, path, body string
		status           int
		want             map[string]any // top-level fields of the answer
		errSub           string         // for an error answer, what its message says
	}{
		{name: "decide: a trailing promise", path: "/v1/decide",
			body:   `{"message":{"text":"I added the endpoint. Now I'll run the tests:"}}`,
			status: 200, want: map[string]any{"verdict": "continue", "check": "stall"}},
		{name: "decide: an overloaded provider is retried", path: "/v1/decide",
			body:   `{"error":` + overloaded + `}`,
			status: 200, want: map[string]any{"verdict": "retry", "check": "error"}},
		{name: "decide: parked on a running job", path: "/v1/decide",
			body:   `{"now":"2026-08-23T10:10:00Z","message":{"text":"Let me look at the chart."},"jobs":[{"id":"j1","label":"npm test","status":"running"}]}`,
			status: 200, want: map[string]any{"verdict": "stop", "check": "pending_wake"}},
		{name: "decide: unknown fields are ignored", path: "/v1/decide",
			body:   `{"message":{"text":"All tests pass.","colour":"blue"},"shoe_size":44}`,
			status: 200, want: map[string]any{"verdict": "stop", "check": "completed"}},
		{name: "decide: a field of the wrong type", path: "/v1/decide",
			body: `{"message":"not an object"}`, status: 400, errSub: `field "message": expected stopgate.Message, got string`},
		{name: "decide: an unknown mode", path: "/v1/decide",
			body: `{"mode":"sleepy"}`, status: 400, errSub: `field "mode": "sleepy" is not interactive or autonomous`},
		{name: "decide: a bad time", path: "/v1/decide",
			body: `{"now":"yesterday"}`, status: 400, errSub: `yesterday`},
		{name: "decide: truncated JSON", path: "/v1/decide",
			body: `{"message":`, status: 400, errSub: "unexpected end of input"},
		{name: "decide: not JSON", path: "/v1/decide",
			body: `message=hello`, status: 400, errSub: "not valid JSON at byte 1"},
		{name: "decide: not an object", path: "/v1/decide",
			body: `[1,2]`, status: 400, errSub: "expected a JSON object, got array"},
		{name: "decide: a batch is two values", path: "/v1/decide",
			body: `{} {}`, status: 400, errSub: "unexpected data after the JSON value"},
		{name: "decide: no body", path: "/v1/decide",
			body: ``, status: 400, errSub: "the input is empty"},

		{name: "classify error: a rate limit", path: "/v1/classify/error", body: rateLimit,
			status: 200, want: map[string]any{"category": "rate_limited", "remedy": "back-off", "source": "exception", "site": "classify.error"}},
		{name: "classify error: every field optional", path: "/v1/classify/error", body: `{}`,
			status: 200, want: map[string]any{"category": "unknown"}},
		{name: "classify error: a status that is not one", path: "/v1/classify/error", body: `{"status":"abc"}`,
			status: 400, errSub: `field "status": "abc" is not an HTTP status`},
		{name: "classify error: a field of the wrong type", path: "/v1/classify/error", body: `{"provider":7}`,
			status: 400, errSub: `field "provider": expected string, got number`},

		{name: "classify stop: max_tokens", path: "/v1/classify/stop", body: `{"provider":"anthropic","payload":{"stop_reason":"max_tokens"}}`,
			status: 200, want: map[string]any{"category": "output_truncated", "detail": "max_tokens", "source": "metadata"}},
		{name: "classify stop: no token is null", path: "/v1/classify/stop", body: `{"provider":"openai","payload":{"usage":{"total_tokens":3}}}`,
			status: 200, want: map[string]any{"category": nil}},
		{name: "classify stop: a field of the wrong type", path: "/v1/classify/stop", body: `{"provider":["anthropic"]}`,
			status: 400, errSub: `field "provider"`},

		{name: "stall: a promise", path: "/v1/stall", body: `{"text":"I updated the parser. Let me check the tests."}`,
			status: 200, want: map[string]any{"stalled": true, "by": "lexical", "sentence": "Let me check the tests."}},
		{name: "stall: a deliberate end", path: "/v1/stall", body: `{"text":"All tests pass and the docs are updated."}`,
			status: 200, want: map[string]any{"stalled": false, "by": "none", "todos": []any{}}},
		{name: "stall: an unknown mode", path: "/v1/stall", body: `{"text":"x","mode":"sleepy"}`,
			status: 400, errSub: `field "mode"`},

		{name: "gate: a failed run never read", path: "/v1/gate", body: failedRun,
			status: 200, want: map[string]any{"blocked": true, "gate": "processes", "unresolved": []any{"p1"}}},
		{name: "gate: nothing reported", path: "/v1/gate", body: `{}`,
			status: 200, want: map[string]any{"blocked": false, "gate": "none"}},
		{name: "gate: a field of the wrong type", path: "/v1/gate", body: `{"processes":"nope"}`,
			status: 400, errSub: `field "processes"`},

		{name: "salvage: tools unsupported", path: "/v1/salvage", body: `{"status":400,"body":{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools"}}}`,
			status: 200, want: map[string]any{"salvaged": false, "failure": "tools_unsupported", "followups": []any{}}},
		{name: "salvage: a status that is not one", path: "/v1/salvage", body: `{"status":"x"}`,
			status: 400, errSub: `field "status"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := post(t, ts.URL+tt.path, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.errSub != "" {
				if msg := errorOf(t, b); !strings.Contains(msg, tt.errSub) {
					t.Errorf("error %q, want it to contain %q", msg, tt.errSub)
				}
				return
			}
			got := decodeObject(t, b)
			for k, v := range tt.want {
				if g, ok := got[k]; !ok || !reflect.DeepEqual(g, v) {
					t.Errorf("%s = %#v (present %t), want %#v; answer %s", k, g, ok, v, b)
				}
			}
		})
	}
}

// TestDecideAnswer checks the whole Decision: the trail of every check, the nudges to pass
// back, and that passing them back spends the budget.
func TestDecideAnswer(t *testing.T) {
	_, ts := start(t, Options{})
	turn := `{"message":{"text":"I added the endpoint. Now I'll run the tests:"}}`
	_, b := post(t, ts.URL+"/v1/decide", turn)
	var d stopgate.Decision
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Trail) != len(stopgate.Checks()) {
		t.Errorf("trail of %d checks, want %d", len(d.Trail), len(stopgate.Checks()))
	}
	if !strings.Contains(d.Message, "Now I'll run the tests:") || d.Nudges.Consecutive != 1 {
		t.Errorf("decision %+v", d)
	}
	nudges, _ := json.Marshal(d.Nudges)
	for range 2 {
		_, b = post(t, ts.URL+"/v1/decide", strings.TrimSuffix(turn, "}")+`,"nudges":`+string(nudges)+`}`)
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		nudges, _ = json.Marshal(d.Nudges)
	}
	if d.Verdict != stopgate.Stop {
		t.Errorf("after the stall budget is spent the agent may stop; got %s (%s)", d.Verdict, b)
	}
}

func TestRequestErrors(t *testing.T) {
	_, ts := start(t, Options{})
	tests := []struct {
		name, method, path, body string
		header                   http.Header
		status                   int
		errSub                   string
		allow                    string
	}{
		{name: "a GET of a POST endpoint", method: "GET", path: "/v1/decide", status: 405, errSub: "the endpoint takes POST", allow: "POST"},
		{name: "a POST of a GET endpoint", method: "POST", path: "/v1/events", body: "{}", status: 405, errSub: "takes GET", allow: "GET, HEAD"},
		{name: "a DELETE of /metrics", method: "DELETE", path: "/metrics", status: 405, allow: "GET, HEAD"},
		{name: "an unknown endpoint", method: "POST", path: "/v1/frobnicate", body: "{}", status: 404, errSub: "no endpoint /v1/frobnicate"},
		{name: "outside the API, with no dashboard", method: "GET", path: "/index.html", status: 404, errSub: "no dashboard"},
		{name: "a form body", method: "POST", path: "/v1/decide", body: "{}",
			header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, status: 415, errSub: "application/json"},
		{name: "a bad Content-Type", method: "POST", path: "/v1/gate", body: "{}",
			header: http.Header{"Content-Type": {";;"}}, status: 415},
		{name: "JSON with a charset", method: "POST", path: "/v1/gate", body: "{}",
			header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, status: 200},
		{name: "a +json media type", method: "POST", path: "/v1/gate", body: "{}",
			header: http.Header{"Content-Type": {"application/vnd.stopgate+json"}}, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := do(t, tt.method, ts.URL+tt.path, tt.body, tt.header)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if tt.status >= 400 {
				if msg := errorOf(t, b); !strings.Contains(msg, tt.errSub) {
					t.Errorf("error %q, want it to contain %q", msg, tt.errSub)
				}
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestHealthz(t *testing.T) {
	_, ts := start(t, Options{})
	resp, b := do(t, "GET", ts.URL+"/healthz", "", nil)
	if resp.StatusCode != 200 || decodeObject(t, b)["status"] != "ok" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	resp, b = do(t, "HEAD", ts.URL+"/healthz", "", nil)
	if resp.StatusCode != 200 || len(b) != 0 {
		t.Errorf("HEAD: %d %q", resp.StatusCode, b)
	}
}

func TestAuth(t *testing.T) {
	const token = "s3cret-token"
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	dashboard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "dashboard") })
	tests := []struct {
		name    string
		token   string // the server's
		method  string
		path    string
		header  http.Header
		host    string // the request's Host, when not the listener's
		status  int
		errSub  string
		wwwAuth string
	}{
		{name: "no token, loopback", method: "POST", path: "/v1/gate", status: 200},
		{name: "no token, localhost by name", method: "POST", path: "/v1/gate", host: "localhost:7318", status: 200},
		{name: "no token, another host (DNS rebinding)", method: "POST", path: "/v1/gate", host: "attacker.example:7318", status: 403, errSub: `host "attacker.example:7318" is not a loopback name`},
		{name: "no token, another host, healthz", method: "GET", path: "/healthz", host: "attacker.example", status: 403},
		{name: "no token, a cross-site browser POST", method: "POST", path: "/v1/decide", header: http.Header{"Sec-Fetch-Site": {"cross-site"}}, status: 403, errSub: "cross-origin"},
		{name: "no token, a same-origin browser POST", method: "POST", path: "/v1/decide", header: http.Header{"Sec-Fetch-Site": {"same-origin"}}, status: 200},

		{name: "token, missing", token: token, method: "POST", path: "/v1/decide", status: 401, errSub: "missing token", wwwAuth: `Bearer realm="stopgate"`},
		{name: "token, wrong", token: token, method: "POST", path: "/v1/decide", header: http.Header{"Authorization": {"Bearer nope"}}, status: 401, errSub: "wrong token"},
		{name: "token, a prefix of it", token: token, method: "POST", path: "/v1/decide", header: http.Header{"Authorization": {"Bearer s3cret"}}, status: 401},
		{name: "token, right", token: token, method: "POST", path: "/v1/decide", header: http.Header{"Authorization": {"Bearer " + token}}, status: 200},
		{name: "token, right, lower-case scheme", token: token, method: "POST", path: "/v1/decide", header: http.Header{"Authorization": {"bearer " + token}}, status: 200},
		{name: "token, right, any host", token: token, method: "POST", path: "/v1/decide", host: "stopgate.example", header: http.Header{"Authorization": {"Bearer " + token}}, status: 200},
		{name: "token, metrics need it", token: token, method: "GET", path: "/metrics", status: 401},
		{name: "token, events need it", token: token, method: "GET", path: "/v1/events", status: 401},
		{name: "token, healthz does not", token: token, method: "GET", path: "/healthz", status: 200},
		{name: "token, unknown endpoints need it", token: token, method: "GET", path: "/v1/nothing", status: 401},
		{name: "token, basic auth is not for the API", token: token, method: "POST", path: "/v1/decide", header: http.Header{"Authorization": {basic("me", token)}}, status: 401},
		{name: "token, the dashboard asks a browser", token: token, method: "GET", path: "/", status: 401, wwwAuth: `Basic realm="stopgate", charset="UTF-8"`},
		{name: "token, the dashboard takes a password", token: token, method: "GET", path: "/", header: http.Header{"Authorization": {basic("anyone", token)}}, status: 200},
		{name: "token, the dashboard, a wrong password", token: token, method: "GET", path: "/", header: http.Header{"Authorization": {basic("anyone", "guess")}}, status: 401},
		{name: "token, the dashboard takes a bearer token", token: token, method: "GET", path: "/", header: http.Header{"Authorization": {"Bearer " + token}}, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := start(t, Options{Token: tt.token, Dashboard: dashboard})
			body := ""
			if tt.method == "POST" {
				body = "{}"
			}
			req, err := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = tt.header.Clone()
			if req.Header == nil {
				req.Header = http.Header{}
			}
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b := mustRead(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if tt.errSub != "" {
				if msg := errorOf(t, []byte(b)); !strings.Contains(msg, tt.errSub) {
					t.Errorf("error %q, want it to contain %q", msg, tt.errSub)
				}
			}
			if tt.wwwAuth != "" && resp.Header.Get("WWW-Authenticate") != tt.wwwAuth {
				t.Errorf("WWW-Authenticate %q, want %q", resp.Header.Get("WWW-Authenticate"), tt.wwwAuth)
			}
		})
	}
}

// mustRead reads the rest of resp's body.
func mustRead(t testing.TB, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewRejects(t *testing.T) {
	for _, opts := range []Options{
		{MaxBodyBytes: -1},
		{ShutdownTimeout: -1},
		{Token: "two words"},
		{Token: "line\nbreak"},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) succeeded", opts)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr  net.Addr
		token string
		ok    bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7318}, "", true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 7318}, "", true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7318}, "", false},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 7318}, "", false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 7318}, "", false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 7318}, "t", true},
		{&net.UnixAddr{Name: "/run/stopgate.sock", Net: "unix"}, "", true},
	}
	for _, tt := range tests {
		err := CheckAddr(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%s, %q) = %v, want ok=%t", tt.addr, tt.token, err, tt.ok)
		}
		if err != nil && (!errors.Is(err, ErrTokenRequired) || !strings.Contains(err.Error(), tt.addr.String())) {
			t.Errorf("CheckAddr(%s): %v does not wrap ErrTokenRequired naming the address", tt.addr, err)
		}
	}
}

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(context.Background(), ln); !errors.Is(err, ErrTokenRequired) {
		t.Errorf("Serve on %s without a token: %v", ln.Addr(), err)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:7318": true, "127.0.0.1": true, "127.1.2.3:80": true, "[::1]:7318": true, "[::1]": true,
		"localhost": true, "LOCALHOST:7318": true, "localhost.:1": true, "app.localhost:7318": true, "": true,
		"[::ffff:127.0.0.1]:80": true,
		"example.com":           false, "localhost.example.com": false, "10.0.0.1:7318": false, "[::]:7318": false,
		"0.0.0.0:7318": false, "127.0.0.1.nip.io": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %t, want %t", host, got, want)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	const limit = 1024
	_, ts := start(t, Options{MaxBodyBytes: limit})
	padded := func(n int) string { // a valid Turn of exactly n bytes
		s := `{"session":""}`
		return `{"session":"` + strings.Repeat("x", n-len(s)) + `"}`
	}
	tests := []struct {
		name    string
		body    string
		chunked bool
		status  int
	}{
		{name: "at the limit", body: padded(limit), status: 200},
		{name: "one byte over", body: padded(limit + 1), status: 413},
		{name: "far over", body: padded(10 * limit), status: 413},
		{name: "over, with no Content-Length", body: padded(limit + 1), chunked: true, status: 413},
		{name: "at the limit, with no Content-Length", body: padded(limit), chunked: true, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body = strings.NewReader(tt.body)
			req, err := http.NewRequest("POST", ts.URL+"/v1/decide", body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.chunked {
				req.ContentLength = -1                             // sent chunked
				req.Body = io.NopCloser(struct{ io.Reader }{body}) // hides the length from net/http
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b := mustRead(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if tt.status == 413 {
				if msg := errorOf(t, []byte(b)); !strings.Contains(msg, "larger than 1024 bytes") {
					t.Errorf("error %q does not name the limit", msg)
				}
			}
		})
	}
}

func TestDefaultBodyLimit(t *testing.T) {
	_, ts := start(t, Options{})
	body := `{"session":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`
	resp, b := post(t, ts.URL+"/v1/decide", body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(errorOf(t, b), "1048576") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}

func TestPanicIsolation(t *testing.T) {
	var logs logBuffer
	s, ts := start(t, Options{Logger: logs.logger()})
	// The unexported hook: a route whose handler panics.
	s.route("POST", "/v1/panic", func(http.ResponseWriter, *http.Request) error {
		panic("boom")
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, b := post(t, ts.URL+"/v1/panic", "{}")
			if resp.StatusCode != http.StatusInternalServerError || errorOf(t, b) != "internal error" {
				t.Errorf("panic: %d %s", resp.StatusCode, b)
			}
		})
		wg.Go(func() {
			resp, b := post(t, ts.URL+"/v1/decide", `{"message":{"text":"Let me check the tests."}}`)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("a decision beside a panic: %d %s", resp.StatusCode, b)
			}
		})
	}
	wg.Wait()
	for _, want := range []string{"panic in handler", "boom", "endpoint=/v1/panic", "server_test.go", // the stack
		"msg=request method=POST path=/v1/panic status=500"} { // the access log, at debug level
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not contain %q:\n%s", want, logs.String())
		}
	}
	m := scrape(t, ts.URL)
	if got := m.value(t, `stopgate_http_panics_total`); got != 8 {
		t.Errorf("panics_total %v, want 8", got)
	}
	if got := m.value(t, `stopgate_http_requests_total{endpoint="/v1/panic",code="500"}`); got != 8 {
		t.Errorf("requests_total for the panics %v, want 8", got)
	}
}

// TestPanicAfterAnswer checks that a handler that panics after it began to answer does not get
// a second answer appended.
func TestPanicAfterAnswer(t *testing.T) {
	s, ts := start(t, Options{})
	s.route("GET", "/v1/half", func(w http.ResponseWriter, _ *http.Request) error {
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, "partial")
		panic("late")
	})
	resp, err := http.Get(ts.URL + "/v1/half")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b := mustRead(t, resp); resp.StatusCode != http.StatusAccepted || b != "partial" {
		t.Errorf("%d %q", resp.StatusCode, b)
	}
}

func TestStoreUnset(t *testing.T) {
	_, ts := start(t, Options{})
	resp, _ := post(t, ts.URL+"/v1/decide", `{}`)
	if got := resp.Header.Get(HeaderRecorded); got != RecordedOff {
		t.Errorf("%s: %q, want %q", HeaderRecorded, got, RecordedOff)
	}
	for _, path := range []string{"/v1/events", "/v1/stats"} {
		resp, b := do(t, "GET", ts.URL+path, "", nil)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(errorOf(t, b), "no event log") {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
	}
}

// A store is read but not written with NoRecord.
func TestNoRecord(t *testing.T) {
	st := openStore(t)
	_, ts := start(t, Options{Store: st, NoRecord: true})
	resp, _ := post(t, ts.URL+"/v1/decide", `{"session":"s"}`)
	if got := resp.Header.Get(HeaderRecorded); got != RecordedOff {
		t.Errorf("%s: %q, want %q", HeaderRecorded, got, RecordedOff)
	}
	resp, b := do(t, "GET", ts.URL+"/v1/events", "", nil)
	if resp.StatusCode != 200 || string(b) != "{\"events\":[]}\n" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}
