package dashboard

import (
	"strings"
	"time"
)

// window is one of the spans the overview can show, with the bucket width its chart counts
// decisions in and how its time axis is labelled.
type window struct {
	// Name is the query parameter's value ("24h").
	Name string
	// Long names the span in prose ("the last 24 hours").
	Long         string
	Span, Bucket time.Duration
	// BucketName names the bucket width ("1-hour").
	BucketName string
	// TickLayout formats the time axis labels.
	TickLayout string
	// every labels one bar in every; the newest bar is always labelled. Zero labels the
	// bars that start at midnight instead.
	every int
}

const day = 24 * time.Hour

// windows lists the selectable windows, shortest first.
var windows = []window{
	{Name: "1h", Long: "the last hour", Span: time.Hour, Bucket: 5 * time.Minute, BucketName: "5-minute", TickLayout: "15:04", every: 2},
	{Name: "24h", Long: "the last 24 hours", Span: day, Bucket: time.Hour, BucketName: "1-hour", TickLayout: "15:04", every: 3},
	{Name: "7d", Long: "the last 7 days", Span: 7 * day, Bucket: 6 * time.Hour, BucketName: "6-hour", TickLayout: "Mon Jan 2"},
	{Name: "30d", Long: "the last 30 days", Span: 30 * day, Bucket: day, BucketName: "1-day", TickLayout: "Jan 2", every: 5},
	{Name: "1y", Long: "the last year", Span: 364 * day, Bucket: 7 * day, BucketName: "1-week", TickLayout: "Jan 2", every: 4},
}

// windowNames lists the windows' names, for messages.
func windowNames() string {
	names := make([]string, len(windows))
	for i, w := range windows {
		names[i] = w.Name
	}
	return strings.Join(names, ", ")
}

// covering returns the shortest window, no shorter than w, whose span at now reaches back to
// t; the longest window when none does. It lets a page that names no window open on the
// newest activity instead of on an empty span (a log filled from old sample sessions).
func (w window) covering(t, now time.Time) window {
	for _, o := range windows {
		if o.Span < w.Span {
			continue
		}
		if since, _ := o.bounds(now); !t.Before(since) {
			return o
		}
	}
	return windows[len(windows)-1]
}

// windowNamed returns the window called name.
func windowNamed(name string) (window, bool) {
	for _, w := range windows {
		if w.Name == name {
			return w, true
		}
	}
	return window{}, false
}

// windowFor returns the shortest window at least d long (the longest when none is); zero
// means 24 hours.
func windowFor(d time.Duration) window {
	if d <= 0 {
		d = day
	}
	for _, w := range windows {
		if w.Span >= d {
			return w
		}
	}
	return windows[len(windows)-1]
}

// bounds returns the window's time range for a page rendered at now: it ends where the
// bucket holding now ends, so that every bar covers one whole bucket, aligned (as the store
// aligns them) to multiples of the bucket width since the Unix epoch.
func (w window) bounds(now time.Time) (since, until time.Time) {
	b := int64(w.Bucket)
	ns := now.UnixNano()
	floor := ns - ((ns%b)+b)%b
	until = time.Unix(0, floor+b).UTC()
	return until.Add(-w.Span), until
}

// tickAt reports whether the i-th of n bars, starting at b, gets a time axis label.
func (w window) tickAt(i, n int, b time.Time) bool {
	if w.every == 0 {
		return b.Hour() == 0 && b.Minute() == 0
	}
	return (n-1-i)%w.every == 0
}

// rangeLabel describes the bucket starting at b, for a bar's tooltip.
func (w window) rangeLabel(b time.Time) string {
	if w.Bucket >= day {
		return b.Format("Mon Jan 2")
	}
	return b.Format("Jan 2 15:04") + "–" + b.Add(w.Bucket).Format("15:04") + " UTC"
}
