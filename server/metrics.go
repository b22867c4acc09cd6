package server

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// latencyBuckets are the upper bounds, in seconds, of the request-latency histograms: from a
// tenth of a millisecond (a decision with no model classifier) to ten seconds (one with a slow
// model).
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics holds the server's counters and histograms and writes them in the Prometheus text
// exposition format (version 0.0.4). Every method is safe for concurrent use and cheap enough
// to call on every request: counters are atomics, found under a read lock.
type metrics struct {
	requests    *counterVec // endpoint, code
	decisions   *counterVec // check, verdict
	terminated  *counterVec // category
	unrecorded  atomic.Uint64
	storeErrors *counterVec // op
	appends     atomic.Uint64
	appended    atomic.Uint64
	panics      atomic.Uint64

	mu        sync.RWMutex
	latencies map[string]*histogram // by endpoint
}

func newMetrics() *metrics {
	return &metrics{
		requests:    newCounterVec("endpoint", "code"),
		decisions:   newCounterVec("check", "verdict"),
		terminated:  newCounterVec("category"),
		storeErrors: newCounterVec("op"),
		latencies:   map[string]*histogram{},
	}
}

// observe records one request's outcome.
func (m *metrics) observe(endpoint string, status int, d time.Duration) {
	m.requests.inc(endpoint, strconv.Itoa(status))
	m.latency(endpoint).observe(d)
}

// latency returns endpoint's histogram, creating it on first use.
func (m *metrics) latency(endpoint string) *histogram {
	m.mu.RLock()
	h := m.latencies[endpoint]
	m.mu.RUnlock()
	if h != nil {
		return h
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if h = m.latencies[endpoint]; h == nil {
		h = newHistogram(latencyBuckets)
		m.latencies[endpoint] = h
	}
	return h
}

// write writes every metric to w in the Prometheus text format, families and series in a
// fixed order.
func (m *metrics) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := promWriter{w: bw}
	p.counterVec("stopgate_http_requests_total", "HTTP requests answered, by endpoint and status code.", m.requests)
	p.family("stopgate_http_request_duration_seconds", "Time to answer an HTTP request, by endpoint.", "histogram")
	m.mu.RLock()
	endpoints := make([]string, 0, len(m.latencies))
	for e := range m.latencies {
		endpoints = append(endpoints, e)
	}
	slices.Sort(endpoints)
	hists := make([]*histogram, len(endpoints))
	for i, e := range endpoints {
		hists[i] = m.latencies[e]
	}
	m.mu.RUnlock()
	for i, e := range endpoints {
		p.histogram("stopgate_http_request_duration_seconds", "endpoint", e, hists[i])
	}
	p.counter("stopgate_http_panics_total", "Handler panics, each answered with a 500 for its request alone.", m.panics.Load())
	p.counterVec("stopgate_decisions_total", "Decisions made, by the check that decided and the verdict.", m.decisions)
	p.counterVec("stopgate_terminations_total", "Decisions that let a run end (verdict stop), by termination category.", m.terminated)
	p.counter("stopgate_decisions_unrecorded_total", "Decisions answered without being recorded in the event log, because appending failed.", m.unrecorded.Load())
	p.counterVec("stopgate_store_errors_total", "Event-log operations that failed, by operation (append, query, stats).", m.storeErrors)
	p.counter("stopgate_store_appends_total", "Event-log append calls (one transaction each; a group commit appends many decisions at once).", m.appends.Load())
	p.counter("stopgate_store_appended_events_total", "Events appended to the event log.", m.appended.Load())
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

// counterVec is a family of counters told apart by label values.
type counterVec struct {
	labels []string
	mu     sync.RWMutex
	series map[string]*series // by the label values joined with \xff
}

type series struct {
	values []string
	n      atomic.Uint64
}

func newCounterVec(labels ...string) *counterVec {
	return &counterVec{labels: labels, series: map[string]*series{}}
}

// inc adds one to the counter with the given label values, one per label.
func (c *counterVec) inc(values ...string) {
	key := strings.Join(values, "\xff")
	c.mu.RLock()
	s := c.series[key]
	c.mu.RUnlock()
	if s == nil {
		c.mu.Lock()
		if s = c.series[key]; s == nil {
			s = &series{values: slices.Clone(values)}
			c.series[key] = s
		}
		c.mu.Unlock()
	}
	s.n.Add(1)
}

// sorted returns the series ordered by their label values.
func (c *counterVec) sorted() []*series {
	c.mu.RLock()
	out := make([]*series, 0, len(c.series))
	for _, s := range c.series {
		out = append(out, s)
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b *series) int { return slices.Compare(a.values, b.values) })
	return out
}

// histogram counts observations in cumulative buckets, Prometheus-style.
type histogram struct {
	bounds []float64
	counts []atomic.Uint64 // one per bound, plus +Inf; not cumulative
	sumNs  atomic.Int64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

func (h *histogram) observe(d time.Duration) {
	s := d.Seconds()
	i, _ := slices.BinarySearch(h.bounds, s) // the first bound >= s: le is inclusive
	h.counts[i].Add(1)
	h.sumNs.Add(int64(d))
}

// promWriter writes the text exposition format, remembering the first write error.
type promWriter struct {
	w   *bufio.Writer
	err error
}

func (p *promWriter) print(parts ...string) {
	for _, s := range parts {
		if p.err == nil {
			_, p.err = p.w.WriteString(s)
		}
	}
}

func (p *promWriter) family(name, help, typ string) {
	p.print("# HELP ", name, " ", escapeHelp(help), "\n# TYPE ", name, " ", typ, "\n")
}

func (p *promWriter) counter(name, help string, n uint64) {
	p.family(name, help, "counter")
	p.print(name, " ", strconv.FormatUint(n, 10), "\n")
}

func (p *promWriter) counterVec(name, help string, c *counterVec) {
	p.family(name, help, "counter")
	for _, s := range c.sorted() {
		p.print(name, "{")
		for i, l := range c.labels {
			if i > 0 {
				p.print(",")
			}
			p.print(l, `="`, escapeLabel(s.values[i]), `"`)
		}
		p.print("} ", strconv.FormatUint(s.n.Load(), 10), "\n")
	}
}

// histogram writes h's series with one label. The count is the sum of the buckets read, so
// the +Inf bucket always equals it even while observations land.
func (p *promWriter) histogram(name, label, value string, h *histogram) {
	lv := label + `="` + escapeLabel(value) + `"`
	var cum uint64
	for i := range h.counts {
		cum += h.counts[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = formatFloat(h.bounds[i])
		}
		p.print(name, "_bucket{", lv, `,le="`, le, `"} `, strconv.FormatUint(cum, 10), "\n")
	}
	p.print(name, "_sum{", lv, "} ", formatFloat(time.Duration(h.sumNs.Load()).Seconds()), "\n")
	p.print(name, "_count{", lv, "} ", strconv.FormatUint(cum, 10), "\n")
}

func formatFloat(f float64) string {
	if math.IsInf(f, +1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
