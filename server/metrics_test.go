package server

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// scraped is a parsed Prometheus text exposition: every sample by its series (the metric name
// and its labels as written), and every family's type.
type scraped struct {
	samples map[string]float64
	types   map[string]string
}

// value returns the sample of series key; zero when absent.
func (s scraped) value(t testing.TB, key string) float64 {
	t.Helper()
	return s.samples[key]
}

// scrape GETs /metrics from base and parses it, failing on anything the format does not allow.
func scrape(t testing.TB, base string) scraped {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	s, err := parseMetrics(mustRead(t, resp))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parseMetrics parses the text format: # HELP and # TYPE before each family's samples, one
// sample a line, label values escaped, histograms with cumulative buckets ending at +Inf and
// equal to their _count.
func parseMetrics(text string) (scraped, error) {
	s := scraped{samples: map[string]float64{}, types: map[string]string{}}
	help := map[string]bool{}
	buckets := map[string][]float64{} // histogram series (without le) → bucket counts in order
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(format string, args ...any) (scraped, error) {
			return s, fmt.Errorf("line %d %q: %s", n, line, fmt.Sprintf(format, args...))
		}
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# HELP "):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			if help[name] {
				return fail("a second HELP")
			}
			help[name] = true
			continue
		case strings.HasPrefix(line, "# TYPE "):
			name, typ, _ := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " ")
			if !help[name] {
				return fail("TYPE before HELP")
			}
			if _, dup := s.types[name]; dup {
				return fail("a second TYPE")
			}
			switch typ {
			case "counter", "gauge", "histogram":
			default:
				return fail("unknown type %q", typ)
			}
			s.types[name] = typ
			continue
		case strings.HasPrefix(line, "#"):
			return fail("a comment that is not HELP or TYPE")
		}
		// The value follows the last space: label values may hold spaces, and no timestamps
		// are written.
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return fail("no value")
		}
		series, val := line[:i], line[i+1:]
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fail("value: %v", err)
		}
		name, labels, err := parseLabels(series)
		if err != nil {
			return fail("%v", err)
		}
		family := name
		if _, ok := s.types[name]; !ok {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if f, ok := strings.CutSuffix(name, suffix); ok && s.types[f] == "histogram" {
					family = f
				}
			}
		}
		typ, ok := s.types[family]
		if !ok {
			return fail("a sample of family %q, which has no TYPE", family)
		}
		if typ == "counter" && (v < 0 || v != math.Trunc(v)) {
			return fail("counter value %v", v)
		}
		if _, dup := s.samples[series]; dup {
			return fail("a second sample of the series")
		}
		s.samples[series] = v
		if typ == "histogram" {
			var rest []string
			le := ""
			for _, l := range labels {
				if l[0] == "le" {
					le = l[1]
				} else {
					rest = append(rest, l[0]+"="+l[1])
				}
			}
			key := family + "{" + strings.Join(rest, ",") + "}"
			switch {
			case strings.HasSuffix(name, "_bucket"):
				if le == "" {
					return fail("a bucket without le")
				}
				if b := buckets[key]; len(b) > 0 && v < b[len(b)-1] {
					return fail("buckets are not cumulative")
				}
				buckets[key] = append(buckets[key], v)
				if le == "+Inf" {
					buckets[key] = append(buckets[key], math.Inf(1)) // marks +Inf seen
				}
			case strings.HasSuffix(name, "_count"):
				b := buckets[key]
				if len(b) < 2 || !math.IsInf(b[len(b)-1], 1) || b[len(b)-2] != v {
					return fail("_count %v is not the +Inf bucket (%v)", v, b)
				}
			}
		}
	}
	return s, sc.Err()
}

// parseLabels splits name{a="x",b="y"} into the name and its label pairs, unescaping values.
func parseLabels(series string) (string, [][2]string, error) {
	name, rest, ok := strings.Cut(series, "{")
	if !ok {
		return series, nil, nil
	}
	if !strings.HasSuffix(rest, "}") {
		return "", nil, fmt.Errorf("unterminated labels")
	}
	rest = strings.TrimSuffix(rest, "}")
	var labels [][2]string
	for rest != "" {
		key, after, ok := strings.Cut(rest, `="`)
		if !ok {
			return "", nil, fmt.Errorf("label without a quoted value: %q", rest)
		}
		var val strings.Builder
		i := 0
		for ; i < len(after) && after[i] != '"'; i++ {
			if after[i] == '\\' && i+1 < len(after) {
				i++
				switch after[i] {
				case 'n':
					val.WriteByte('\n')
				case '\\', '"':
					val.WriteByte(after[i])
				default:
					return "", nil, fmt.Errorf("bad escape \\%c", after[i])
				}
				continue
			}
			if after[i] == '\n' {
				return "", nil, fmt.Errorf("raw newline in a label value")
			}
			val.WriteByte(after[i])
		}
		if i == len(after) {
			return "", nil, fmt.Errorf("unterminated label value")
		}
		labels = append(labels, [2]string{key, val.String()})
		rest = strings.TrimPrefix(after[i+1:], ",")
	}
	return name, labels, nil
}

// TestMetrics makes a known set of requests and checks every counter against them.
func TestMetrics(t *testing.T) {
	st := openStore(t)
	_, ts := start(t, Options{Store: st})
	stall := `{"session":"%d","message":{"text":"I added the endpoint. Now I'll run the tests:"}}`
	requests := []struct {
		path, body string
		status     int
	}{
		{"/v1/decide", fmt.Sprintf(stall, 1), 200},
		{"/v1/decide", fmt.Sprintf(stall, 2), 200},
		{"/v1/decide", fmt.Sprintf(stall, 3), 200},
		{"/v1/decide", `{"message":{"text":"All tests pass."}}`, 200},
		{"/v1/decide", `{"message":{"text":"Done: the docs are updated."}}`, 200},
		{"/v1/decide", `{"message":{"text":"x","finish_reason":"refusal","provider":"anthropic"}}`, 200},
		{"/v1/decide", `{"error":{"provider":"anthropic","status":529}}`, 200},
		{"/v1/decide", `{"message":`, 400},
		{"/v1/classify/error", `{"status":429}`, 200},
		{"/v1/classify/error", `{"status":401}`, 200},
		{"/v1/gate", `{"processes":1}`, 400},
	}
	for _, r := range requests {
		if resp, b := post(t, ts.URL+r.path, r.body); resp.StatusCode != r.status {
			t.Fatalf("%s %s: %d %s", r.path, r.body, resp.StatusCode, b)
		}
	}
	m := scrape(t, ts.URL)
	events, err := st.Query(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for series, want := range map[string]float64{
		`stopgate_http_requests_total{endpoint="/v1/decide",code="200"}`:         7,
		`stopgate_http_requests_total{endpoint="/v1/decide",code="400"}`:         1,
		`stopgate_http_requests_total{endpoint="/v1/classify/error",code="200"}`: 2,
		`stopgate_http_requests_total{endpoint="/v1/gate",code="400"}`:           1,
		`stopgate_http_requests_total{endpoint="/metrics",code="200"}`:           0, // not until answered
		`stopgate_http_request_duration_seconds_count{endpoint="/v1/decide"}`:    8,
		`stopgate_http_request_duration_seconds_count{endpoint="/v1/gate"}`:      1,
		`stopgate_http_request_duration_seconds_count{endpoint="/v1/stall"}`:     0,
		`stopgate_decisions_total{check="stall",verdict="continue"}`:             3,
		`stopgate_decisions_total{check="completed",verdict="stop"}`:             2,
		`stopgate_decisions_total{check="stop_metadata",verdict="stop"}`:         1,
		`stopgate_decisions_total{check="error",verdict="retry"}`:                1,
		`stopgate_terminations_total{category="completed"}`:                      2,
		`stopgate_terminations_total{category="content_refusal"}`:                1,
		`stopgate_decisions_unrecorded_total`:                                    0,
		`stopgate_store_appended_events_total`:                                   float64(len(events)),
		`stopgate_http_panics_total`:                                             0,
	} {
		if got := m.value(t, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if appends := m.value(t, "stopgate_store_appends_total"); appends < 1 || appends > 7 {
		t.Errorf("store_appends_total %v: want one per decision at most (sequential requests), at least one", appends)
	}
	if len(events) < 7 {
		t.Errorf("%d events stored for 7 decisions", len(events))
	}
	// Every endpoint has a histogram from the start, and the sum is in seconds.
	for _, e := range []string{"/v1/decide", "/v1/classify/error", "/v1/classify/stop", "/v1/stall", "/v1/gate", "/v1/salvage", "/v1/events", "/v1/stats", "/healthz", "/metrics"} {
		if _, ok := m.samples[`stopgate_http_request_duration_seconds_bucket{endpoint="`+e+`",le="+Inf"}`]; !ok {
			t.Errorf("no histogram for %s", e)
		}
	}
	if sum := m.value(t, `stopgate_http_request_duration_seconds_sum{endpoint="/v1/decide"}`); sum <= 0 || sum > 60 {
		t.Errorf("decide latency sum %v s", sum)
	}
}

// TestMetricsFormat writes awkward label values and parses them back.
func TestMetricsFormat(t *testing.T) {
	m := newMetrics()
	odd := "a \"quoted\" \\ back\nslash"
	m.requests.inc(odd, "200")
	m.requests.inc(odd, "200")
	m.observe("/x", 200, 3*time.Millisecond)
	m.observe("/x", 200, 20*time.Second) // beyond the last bound: only +Inf
	m.observe("/x", 200, 100*time.Microsecond)
	var sb strings.Builder
	if err := m.write(&sb); err != nil {
		t.Fatal(err)
	}
	s, err := parseMetrics(sb.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, sb.String())
	}
	found := false
	for series, v := range s.samples {
		name, labels, _ := parseLabels(series)
		if name == "stopgate_http_requests_total" && labels[0][1] == odd {
			found = v == 2
		}
	}
	if !found {
		t.Errorf("the odd label did not survive:\n%s", sb.String())
	}
	for le, want := range map[string]float64{"0.0001": 1, "0.0025": 1, "0.005": 2, "10": 2, "+Inf": 3} {
		if got := s.samples[`stopgate_http_request_duration_seconds_bucket{endpoint="/x",le="`+le+`"}`]; got != want {
			t.Errorf("bucket le=%s: %v, want %v", le, got, want)
		}
	}
	if got := s.samples[`stopgate_http_request_duration_seconds_sum{endpoint="/x"}`]; math.Abs(got-20.0031) > 1e-9 {
		t.Errorf("sum %v, want 20.0031", got)
	}
}
