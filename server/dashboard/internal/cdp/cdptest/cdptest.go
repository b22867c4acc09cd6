// Package cdptest starts the headless Chromium a test drives through package cdp.
package cdptest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stopgate/stopgate/server/dashboard/internal/cdp"
)

// DefaultPath is where Debian's chromium package installs the browser.
const DefaultPath = "/usr/bin/chromium"

// Path returns the Chromium tests use: $STOPGATE_CHROMIUM when set, else DefaultPath.
func Path() string {
	if p := os.Getenv("STOPGATE_CHROMIUM"); p != "" {
		return p
	}
	return DefaultPath
}

// Launch starts a headless Chromium with a fresh profile for tb and closes it when tb ends.
// A missing browser fails the test, saying how to install it: the browser tests are part of
// the suite, not an option.
func Launch(tb testing.TB) *cdp.Browser {
	tb.Helper()
	path := Path()
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("no Chromium at %s (%v): install it with `apt-get update && apt-get install -y chromium`, "+
			"or point STOPGATE_CHROMIUM at one", path, err)
	}
	b, err := cdp.Launch(path, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		// tb's context is already cancelled when cleanups run: give the browser until the
		// test binary's deadline to exit.
		ctx, cancel := context.WithCancel(context.Background())
		if d, ok := deadline(tb); ok {
			ctx, cancel = context.WithDeadline(context.Background(), d)
		}
		defer cancel()
		if err := b.Close(ctx); err != nil {
			tb.Error(err)
		}
	})
	return b
}

// Context returns a context for tb's browser calls: tb's own, ending at the test binary's
// deadline (less a little, to report the failure) when it has one.
func Context(tb testing.TB) context.Context {
	ctx := tb.Context()
	if d, ok := deadline(tb); ok {
		c, cancel := context.WithDeadline(ctx, d)
		tb.Cleanup(cancel)
		return c
	}
	return ctx
}

func deadline(tb testing.TB) (time.Time, bool) {
	t, ok := tb.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	d, ok := t.Deadline()
	if !ok {
		return time.Time{}, false
	}
	return d.Add(-5 * time.Second), true
}
