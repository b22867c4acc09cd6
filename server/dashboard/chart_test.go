package dashboard

import (
	"slices"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

func TestNiceScale(t *testing.T) {
	tests := []struct{ max, top, step int64 }{
		{0, 1, 1}, {1, 1, 1}, {3, 3, 1}, {5, 5, 1}, {6, 6, 2}, {7, 8, 2}, {10, 10, 2},
		{11, 15, 5}, {25, 25, 5}, {26, 30, 10}, {100, 100, 20}, {101, 150, 50}, {4999, 5000, 1000},
	}
	for _, tt := range tests {
		top, step := niceScale(tt.max)
		if top != tt.top || step != tt.step {
			t.Errorf("niceScale(%d) = %d, %d; want %d, %d", tt.max, top, step, tt.top, tt.step)
		}
	}
}

func TestWindowBounds(t *testing.T) {
	now := time.Date(2026, 3, 14, 15, 37, 12, 0, time.UTC)
	tests := []struct {
		name         string
		since, until string
	}{
		{"1h", "2026-03-14T14:40:00Z", "2026-03-14T15:40:00Z"},
		{"24h", "2026-03-13T16:00:00Z", "2026-03-14T16:00:00Z"},
		{"7d", "2026-03-07T18:00:00Z", "2026-03-14T18:00:00Z"},
		{"30d", "2026-02-13T00:00:00Z", "2026-03-15T00:00:00Z"},
	}
	for _, tt := range tests {
		w, ok := windowNamed(tt.name)
		if !ok {
			t.Fatalf("no window %q", tt.name)
		}
		since, until := w.bounds(now)
		if got := since.Format(time.RFC3339) + " " + until.Format(time.RFC3339); got != tt.since+" "+tt.until {
			t.Errorf("%s: bounds %s, want %s %s", tt.name, got, tt.since, tt.until)
		}
		if until.Sub(since) != w.Span || since.UnixNano()%int64(w.Bucket) != 0 {
			t.Errorf("%s: [%s, %s) is not %v of whole %v buckets", tt.name, since, until, w.Span, w.Bucket)
		}
	}
}

func TestWindowFor(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "24h"}, {-time.Hour, "24h"}, {30 * time.Minute, "1h"}, {time.Hour, "1h"}, {2 * time.Hour, "24h"},
		{24 * time.Hour, "24h"}, {7 * day, "7d"}, {8 * day, "30d"}, {90 * day, "1y"}, {400 * day, "1y"},
	}
	for _, tt := range tests {
		if got := windowFor(tt.d).Name; got != tt.want {
			t.Errorf("windowFor(%v) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

func TestBuildChart(t *testing.T) {
	w, _ := windowNamed("24h")
	until := time.Date(2026, 3, 14, 16, 0, 0, 0, time.UTC)
	hour := func(h int) time.Time { return time.Date(2026, 3, 14, h, 0, 0, 0, time.UTC) }
	counts := []store.DecisionCount{
		{Bucket: hour(15), Check: stopgate.CheckStall, Verdict: stopgate.Continue, Count: 2},
		{Bucket: hour(15), Check: stopgate.CheckCompleted, Verdict: stopgate.Stop, Count: 5},
		{Bucket: hour(9), Check: stopgate.CheckError, Verdict: stopgate.Retry, Count: 1},
		// Outside the window: ignored.
		{Bucket: until, Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Count: 9},
		{Bucket: until.Add(-25 * time.Hour), Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Count: 9},
	}
	ch := buildChart(counts, w, until)
	if ch == nil {
		t.Fatal("no chart")
	}
	if ch.Total != 8 || ch.MaxStack != 7 || len(ch.Bars) != 24 {
		t.Fatalf("total %d, tallest %d, %d bars; want 8, 7, 24", ch.Total, ch.MaxStack, len(ch.Bars))
	}
	var legend []string
	for _, s := range ch.Legend {
		legend = append(legend, string(s.Check)+"/"+string(s.Verdict))
	}
	// Completed first, then the supervisor's order.
	if want := []string{"completed/stop", "error/retry", "stall/continue"}; !slices.Equal(legend, want) {
		t.Errorf("legend %q, want %q", legend, want)
	}
	last := ch.Bars[23]
	if !last.Bucket.Equal(hour(15)) || last.Total != 7 || len(last.Segments) != 2 {
		t.Fatalf("last bar %v: total %d, %d segments", last.Bucket, last.Total, len(last.Segments))
	}
	// Stacked bottom-up, touching, heights in proportion to the counts; the y axis tops at 8.
	bottom, top := last.Segments[0], last.Segments[1]
	if bottom.Check != stopgate.CheckCompleted || bottom.Y+bottom.H != plotBottom || top.Y+top.H != bottom.Y {
		t.Errorf("segments not stacked: %+v, %+v", bottom, top)
	}
	if unit := (plotBottom - plotTop) / 8.0; round2(5*unit) != bottom.H || round2(2*unit) != top.H {
		t.Errorf("segment heights %v, %v; want %v, %v", bottom.H, top.H, round2(5*unit), round2(2*unit))
	}
	var yLabels []string
	for _, tk := range ch.YTicks {
		yLabels = append(yLabels, tk.Label)
	}
	if want := []string{"0", "2", "4", "6", "8"}; !slices.Equal(yLabels, want) {
		t.Errorf("y ticks %q, want %q", yLabels, want)
	}
	var xLabels []string
	for _, tk := range ch.XTicks {
		xLabels = append(xLabels, tk.Label)
	}
	// Every third hour, ending with the newest bar.
	if want := []string{"18:00", "21:00", "00:00", "03:00", "06:00", "09:00", "12:00", "15:00"}; !slices.Equal(xLabels, want) {
		t.Errorf("x ticks %q, want %q", xLabels, want)
	}

	if ch := buildChart(counts[3:], w, until); ch != nil {
		t.Errorf("a chart of nothing in the window: %+v", ch)
	}
}

func TestBuildChartDayTicks(t *testing.T) {
	w, _ := windowNamed("7d")
	since, until := w.bounds(time.Date(2026, 3, 14, 15, 37, 0, 0, time.UTC))
	ch := buildChart([]store.DecisionCount{{Bucket: since, Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Count: 1}}, w, until)
	var labels []string
	for _, tk := range ch.XTicks {
		labels = append(labels, tk.Label)
		if tk.Line == 0 || tk.Pos <= tk.Line {
			t.Errorf("day tick %q: label at %v, midnight line at %v", tk.Label, tk.Pos, tk.Line)
		}
	}
	want := []string{"Sun Mar 8", "Mon Mar 9", "Tue Mar 10", "Wed Mar 11", "Thu Mar 12", "Fri Mar 13", "Sat Mar 14"}
	if !slices.Equal(labels, want) {
		t.Errorf("day ticks %q, want %q", labels, want)
	}
}

func TestSeriesColors(t *testing.T) {
	for _, c := range append(stopgate.Checks(), stopgate.CheckCompleted) {
		if _, ok := checkColors[c]; !ok {
			t.Errorf("check %s has no hue of its own: it would be drawn in the fallback grey", c)
		}
	}
	seen := map[string]string{}
	for _, c := range append(stopgate.Checks(), stopgate.CheckCompleted, "some_new_check") {
		for _, v := range []stopgate.Verdict{stopgate.Stop, stopgate.Continue, stopgate.Retry} {
			col := seriesColor(c, v)
			if len(col) != 7 || col[0] != '#' {
				t.Errorf("seriesColor(%s, %s) = %q", c, v, col)
			}
			key := string(c) + "/" + string(v)
			if prev, ok := seen[col]; ok && c != "some_new_check" {
				t.Errorf("%s and %s share colour %s", prev, key, col)
			}
			seen[col] = key
		}
	}
}

func TestFormat(t *testing.T) {
	percents := []struct {
		share float64
		want  string
	}{
		{0, "0%"}, {0.25, "25%"}, {1.0 / 3, "33%"}, {0.004, "0.4%"}, {0.000001, "0.1%"},
		{0.999, "99.9%"}, {0.99999, "99.9%"}, {1, "100%"},
	}
	for _, tt := range percents {
		if got := formatPercent(tt.share); got != tt.want {
			t.Errorf("formatPercent(%v) = %q, want %q", tt.share, got, tt.want)
		}
	}
	counts := []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"}}
	for _, tt := range counts {
		if got := formatCount(tt.n); got != tt.want {
			t.Errorf("formatCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	now := time.Date(2026, 3, 14, 15, 37, 0, 0, time.UTC)
	agos := []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Minute, "in the future"}, {0, "just now"}, {59 * time.Second, "just now"},
		{7 * time.Minute, "7m ago"}, {5 * time.Hour, "5h ago"}, {47 * time.Hour, "47h ago"}, {72 * time.Hour, "3d ago"},
	}
	for _, tt := range agos {
		if got := ago(now, now.Add(-tt.d)); got != tt.want {
			t.Errorf("ago(%v before) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
