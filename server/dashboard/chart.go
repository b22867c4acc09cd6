package dashboard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// The chart's drawing area, in SVG user units; the SVG scales to its container's width.
const (
	chartWidth  = 960
	chartHeight = 280
	plotLeft    = 56
	plotRight   = chartWidth - 16
	plotTop     = 16
	plotBottom  = chartHeight - 48
)

// chart is the decisions-over-time stacked bar chart, laid out for the template: every
// coordinate is computed here, so the template only writes elements.
type chart struct {
	Width, Height          int
	PlotLeft, PlotRight    float64
	PlotTop, PlotBottom    float64
	Bars                   []bar
	YTicks, XTicks         []tick
	Legend                 []series
	XLabel, YLabel, Desc   string
	XLabelX, XLabelY       float64
	YTickX, XTickY         float64
	YLabelX, YLabelY       float64
	MaxStack, Total, Slots int64
}

// bar is one time bucket: its segments stacked bottom-up in legend order.
type bar struct {
	Bucket   time.Time
	Label    string
	X, Width float64
	Total    int64
	Segments []segment
}

// segment is one check and verdict's share of a bar.
type segment struct {
	Check   stopgate.Check
	Verdict stopgate.Verdict
	Count   int64
	Y, H    float64
	Color   string
}

// tick is one axis label at Pos; Line, when not zero, is where a time tick draws a boundary.
type tick struct {
	Pos   float64
	Label string
	Line  float64
}

// series is one check and verdict pair, as the legend shows it.
type series struct {
	Check   stopgate.Check
	Verdict stopgate.Verdict
	Color   string
	Total   int64
}

// checkColors gives each check a hue; verdictColor shades it by verdict.
var checkColors = map[stopgate.Check]string{
	stopgate.CheckCompleted:    "#2f8f5b",
	stopgate.CheckError:        "#c8414f",
	stopgate.CheckStopMetadata: "#e07b1a",
	stopgate.CheckLivelock:     "#8a55c0",
	stopgate.CheckSubagents:    "#16927f",
	stopgate.CheckProcesses:    "#2b67d1",
	stopgate.CheckClaims:       "#7a6a1f",
	stopgate.CheckPendingWake:  "#4aa3df",
	stopgate.CheckTodos:        "#d4a106",
	stopgate.CheckStall:        "#cf4f9a",
}

// seriesColor is the fill of a check and verdict: the check's hue, full for a nudge
// (continue), darkened for a retry and lightened for a stop, so that one check's verdicts
// stay apart.
func seriesColor(c stopgate.Check, v stopgate.Verdict) string {
	base, ok := checkColors[c]
	if !ok {
		base = "#7b8494"
	}
	switch v {
	case stopgate.Stop:
		return mix(base, "#ffffff", 0.35)
	case stopgate.Retry:
		return mix(base, "#000000", 0.3)
	case stopgate.Continue:
		return base
	}
	return mix(base, "#808080", 0.5)
}

// mix blends two #rrggbb colours, f of the way from a to b.
func mix(a, b string, f float64) string {
	pa, pb := parseHex(a), parseHex(b)
	var out [3]int
	for i := range out {
		out[i] = int(math.Round(float64(pa[i]) + (float64(pb[i])-float64(pa[i]))*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", out[0], out[1], out[2])
}

func parseHex(s string) [3]int {
	var c [3]int
	for i := range c {
		v, _ := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		c[i] = int(v)
	}
	return c
}

// checkRank orders checks the way the legend and the stacks list them: completed first (the
// bulk, at the bottom of each bar), then the supervisor's order, then any other name.
func checkRank(c stopgate.Check) int {
	if c == stopgate.CheckCompleted {
		return 0
	}
	if i := slices.Index(stopgate.Checks(), c); i >= 0 {
		return i + 1
	}
	return len(stopgate.Checks()) + 1
}

func verdictRank(v stopgate.Verdict) int {
	switch v {
	case stopgate.Stop:
		return 0
	case stopgate.Continue:
		return 1
	case stopgate.Retry:
		return 2
	}
	return 3
}

func compareSeries(a, b series) int {
	return cmp.Or(
		cmp.Compare(checkRank(a.Check), checkRank(b.Check)), cmp.Compare(a.Check, b.Check),
		cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)), cmp.Compare(a.Verdict, b.Verdict),
	)
}

// buildChart lays out counts over the window w ending at end: one bar per bucket, empty
// buckets included. Counts outside the window are ignored. It returns nil when there is
// nothing to draw.
func buildChart(counts []store.DecisionCount, w window, end time.Time) *chart {
	slots := int(w.Span / w.Bucket)
	start := end.Add(-w.Span)
	type key struct {
		c stopgate.Check
		v stopgate.Verdict
	}
	perBucket := make([]map[key]int64, slots)
	totals := map[key]int64{}
	var total int64
	for _, dc := range counts {
		if dc.Bucket.Before(start) || !dc.Bucket.Before(end) || dc.Count <= 0 {
			continue
		}
		i := int(dc.Bucket.Sub(start) / w.Bucket)
		if perBucket[i] == nil {
			perBucket[i] = map[key]int64{}
		}
		k := key{dc.Check, dc.Verdict}
		perBucket[i][k] += dc.Count
		totals[k] += dc.Count
		total += dc.Count
	}
	if total == 0 {
		return nil
	}

	ch := &chart{
		Width: chartWidth, Height: chartHeight,
		PlotLeft: plotLeft, PlotRight: plotRight, PlotTop: plotTop, PlotBottom: plotBottom,
		XLabel: "time (UTC), " + w.BucketName + " buckets", YLabel: "decisions",
		XLabelX: (plotLeft + plotRight) / 2, XLabelY: chartHeight - 8,
		YLabelX: 16, YLabelY: (plotTop + plotBottom) / 2,
		YTickX: plotLeft - 8, XTickY: plotBottom + 18,
		Total: total, Slots: int64(slots),
	}
	for k, n := range totals {
		ch.Legend = append(ch.Legend, series{Check: k.c, Verdict: k.v, Color: seriesColor(k.c, k.v), Total: n})
	}
	slices.SortFunc(ch.Legend, compareSeries)

	for _, m := range perBucket {
		var s int64
		for _, n := range m {
			s += n
		}
		ch.MaxStack = max(ch.MaxStack, s)
	}
	top, step := niceScale(ch.MaxStack)
	yOf := func(v int64) float64 {
		return plotBottom - float64(v)/float64(top)*(plotBottom-plotTop)
	}
	for v := int64(0); v <= top; v += step {
		ch.YTicks = append(ch.YTicks, tick{Pos: round2(yOf(v)), Label: strconv.FormatInt(v, 10)})
	}

	slot := (plotRight - plotLeft) / float64(slots)
	width := round2(slot * 0.74)
	for i := range slots {
		b := start.Add(time.Duration(i) * w.Bucket)
		x := plotLeft + slot*float64(i)
		br := bar{Bucket: b, Label: w.rangeLabel(b), X: round2(x + (slot-width)/2), Width: width}
		var acc int64
		for _, s := range ch.Legend {
			n := perBucket[i][key{s.Check, s.Verdict}]
			if n == 0 {
				continue
			}
			y0, y1 := yOf(acc), yOf(acc+n)
			br.Segments = append(br.Segments, segment{
				Check: s.Check, Verdict: s.Verdict, Count: n,
				Y: round2(y1), H: round2(y0 - y1), Color: s.Color,
			})
			acc += n
		}
		br.Total = acc
		ch.Bars = append(ch.Bars, br)
		if w.tickAt(i, slots, b) {
			t := tick{Pos: round2(x + slot/2), Label: b.Format(w.TickLayout)}
			if w.every == 0 {
				// A day label sits in the middle of its day, after a line at midnight.
				perDay := float64(day / w.Bucket)
				t.Pos, t.Line = round2(min(x+slot*perDay/2, plotRight-slot)), round2(x)
			}
			ch.XTicks = append(ch.XTicks, t)
		}
	}
	ch.Desc = fmt.Sprintf("%d decisions in %d %s buckets from %s to %s (UTC); the tallest bar holds %d.",
		total, slots, w.BucketName, start.Format(time.DateTime), end.Format(time.DateTime), ch.MaxStack)
	return ch
}

// niceScale returns the top of the y axis for a largest value of m, and the step between
// its ticks: a step of 1, 2 or 5 times a power of ten giving at most five intervals.
func niceScale(m int64) (top, step int64) {
	if m <= 0 {
		return 1, 1
	}
	for p := int64(1); ; p *= 10 {
		for _, f := range []int64{1, 2, 5} {
			step = f * p
			if (m+step-1)/step <= 5 {
				return (m + step - 1) / step * step, step
			}
		}
	}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
