// Package cdp drives a headless Chromium through the Chrome DevTools Protocol, over the pipe
// Chromium opens with --remote-debugging-pipe: it reads commands on its file descriptor 3
// and writes replies and events on 4, each message one JSON object followed by a NUL byte.
//
// It does what the dashboard's browser tests need and no more: open a page, load a URL, read
// what the page logged as an error, evaluate an expression and take a screenshot. A pipe
// needs no port, so tests never race for one, and the protocol needs no dependency.
package cdp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// flags are the command-line flags Launch always passes: headless, no sandbox (tests run as
// root in containers), and nothing that reaches the network or starts background services.
var flags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-extensions",
	"--disable-breakpad",
	"--disable-dev-shm-usage",
	"--hide-scrollbars",
	"--mute-audio",
	"--remote-debugging-pipe",
}

// Error is an error the browser answered a command with.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

// Error returns the browser's message with its code.
func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("cdp: %s (%d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("cdp: %s (%d)", e.Message, e.Code)
}

// Event is one event the browser sent.
type Event struct {
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params"`
}

// message is any message on the pipe: a command, its reply, or an event.
type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Browser is a running Chromium. Its methods are safe for concurrent use.
type Browser struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	stderr *tailBuffer
	exited chan struct{} // closed when the process has exited

	mu      sync.Mutex // guards the fields below and serialises writes
	nextID  int64
	pending map[int64]chan message
	events  []Event
	changed chan struct{} // closed and replaced at each event, and when the reader ends
	readErr error         // set when the reader ends
}

// Launch starts the Chromium at path, headless, with a profile in userDataDir and any extra
// flags, and returns once it is running. Besides --remote-debugging-pipe it passes
// --headless --no-sandbox --disable-gpu --disable-quic --no-first-run and the flags that keep
// it off the network and from starting background services (updates, sync, crash reports).
func Launch(path, userDataDir string, extra ...string) (*Browser, error) {
	// Chromium reads commands from its fd 3 and writes to its fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("cdp: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("cdp: %w", err)
	}
	args := append(append(append([]string{}, flags...), "--user-data-dir="+userDataDir), extra...)
	args = append(args, "about:blank")
	b := &Browser{
		cmd:     exec.Command(path, args...),
		w:       cmdW,
		stderr:  &tailBuffer{max: 16 << 10},
		exited:  make(chan struct{}),
		pending: map[int64]chan message{},
		changed: make(chan struct{}),
	}
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = b.stderr
	err = b.cmd.Start()
	// The child holds its own copies of its ends now.
	cmdR.Close()
	outW.Close()
	if err != nil {
		cmdW.Close()
		outR.Close()
		return nil, fmt.Errorf("cdp: start %s: %w", path, err)
	}
	go func() {
		_ = b.cmd.Wait()
		close(b.exited)
	}()
	go b.read(outR)
	return b, nil
}

// read dispatches the browser's messages until the pipe closes.
func (b *Browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var line []byte
		line, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m struct {
			message
			Params json.RawMessage `json:"params,omitempty"`
		}
		if err = json.Unmarshal(line[:len(line)-1], &m); err != nil {
			err = fmt.Errorf("cdp: undecodable message: %w", err)
			break
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m.message
			}
		} else {
			b.events = append(b.events, Event{Method: m.Method, SessionID: m.SessionID, Params: m.Params})
			close(b.changed)
			b.changed = make(chan struct{})
		}
		b.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("cdp: the browser closed the pipe")
	}
	b.mu.Lock()
	b.readErr = err
	for id, ch := range b.pending {
		delete(b.pending, id)
		close(ch)
	}
	close(b.changed)
	b.mu.Unlock()
}

// Call sends a command, to the page session sessionID or to the browser when it is empty,
// and decodes its result into result unless result is nil.
func (b *Browser) Call(ctx context.Context, sessionID, method string, params, result any) error {
	ch := make(chan message, 1)
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("cdp: %s: %w%s", method, b.readErr, b.stderr.suffix())
	}
	b.nextID++
	id := b.nextID
	if params == nil {
		params = struct{}{}
	}
	data, err := json.Marshal(message{ID: id, Method: method, SessionID: sessionID, Params: params})
	if err == nil {
		b.pending[id] = ch
		_, err = b.w.Write(append(data, 0))
		if err != nil {
			delete(b.pending, id)
		}
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("cdp: %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.mu.Lock()
			err := b.readErr
			b.mu.Unlock()
			return fmt.Errorf("cdp: %s: %w%s", method, err, b.stderr.suffix())
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("cdp: %s: decode result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("cdp: %s: %w", method, ctx.Err())
	}
}

// Mark returns how many events have arrived so far: the from of a WaitEvent or WaitLoad
// for an event that an action taken after Mark will cause.
func (b *Browser) Mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

// WaitEvent waits for the first event from the from-th on (counting from zero, in arrival
// order) that match accepts, and returns it.
func (b *Browser) WaitEvent(ctx context.Context, from int, match func(Event) bool) (Event, error) {
	for {
		b.mu.Lock()
		for ; from < len(b.events); from++ {
			if match(b.events[from]) {
				e := b.events[from]
				b.mu.Unlock()
				return e, nil
			}
		}
		changed, readErr := b.changed, b.readErr
		b.mu.Unlock()
		if readErr != nil {
			return Event{}, fmt.Errorf("cdp: waiting for an event: %w%s", readErr, b.stderr.suffix())
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Event{}, fmt.Errorf("cdp: waiting for an event: %w", ctx.Err())
		}
	}
}

// Events returns the events of session sessionID received so far, in order.
func (b *Browser) Events(sessionID string) []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Event
	for _, e := range b.events {
		if e.SessionID == sessionID {
			out = append(out, e)
		}
	}
	return out
}

// Close asks the browser to quit and waits for it to exit. When ctx ends first it kills the
// process and says so.
func (b *Browser) Close(ctx context.Context) error {
	// The browser may exit before it answers, so the call's own error says nothing.
	_ = b.Call(ctx, "", "Browser.close", nil, nil)
	defer b.w.Close()
	select {
	case <-b.exited:
		return nil
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		<-b.exited
		return fmt.Errorf("cdp: the browser did not exit (%w), so it was killed%s", ctx.Err(), b.stderr.suffix())
	}
}

// Page is one tab, attached in flat mode: its commands and events carry its session id.
type Page struct {
	b                   *Browser
	TargetID, SessionID string
}

// NewPage opens a blank tab and enables the domains the other methods read: Page, Runtime
// (console calls, exceptions) and Log (network failures, security violations).
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, TargetID: target.TargetID, SessionID: attached.SessionID}
	for _, domain := range []string{"Page", "Runtime", "Log"} {
		if err := b.Call(ctx, p.SessionID, domain+".enable", nil, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Call sends a command to the page.
func (p *Page) Call(ctx context.Context, method string, params, result any) error {
	return p.b.Call(ctx, p.SessionID, method, params, result)
}

// SetViewport sets the page's viewport to width by height CSS pixels at scale device pixels
// each.
func (p *Page) SetViewport(ctx context.Context, width, height int, scale float64) error {
	return p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": scale, "mobile": false,
	}, nil)
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) error {
	from := p.b.Mark()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("cdp: navigate to %s: %s", url, nav.ErrorText)
	}
	return p.WaitLoad(ctx, from)
}

// WaitLoad waits for the page's next load event from the from-th event on (see
// [Browser.Mark]): the end of a navigation the page itself started, by a link or a script.
func (p *Page) WaitLoad(ctx context.Context, from int) error {
	_, err := p.b.WaitEvent(ctx, from, func(e Event) bool {
		return e.SessionID == p.SessionID && e.Method == "Page.loadEventFired"
	})
	return err
}

// Evaluate evaluates the JavaScript expression expr in the page, awaiting it when it is a
// promise, and decodes its value (as JSON) into out unless out is nil. An exception thrown
// by expr is an error.
func (p *Page) Evaluate(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *exceptionDetails `json:"exceptionDetails"`
	}
	err := p.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	}, &res)
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("cdp: evaluate: %s", res.ExceptionDetails)
	}
	if out != nil {
		if len(res.Result.Value) == 0 {
			return errors.New("cdp: evaluate: the expression has no JSON value")
		}
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			return fmt.Errorf("cdp: evaluate: decode value: %w", err)
		}
	}
	return nil
}

// Screenshot captures the whole page, beyond the viewport, as a PNG.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var metrics struct {
		ContentSize struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := p.Call(ctx, "Page.getLayoutMetrics", nil, &metrics); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	err := p.Call(ctx, "Page.captureScreenshot", map[string]any{
		"format":                "png",
		"captureBeyondViewport": true,
		"clip": map[string]any{
			"x": 0, "y": 0, "scale": 1,
			"width":  math.Ceil(metrics.ContentSize.Width),
			"height": math.Ceil(metrics.ContentSize.Height),
		},
	}, &shot)
	if err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("cdp: screenshot: %w", err)
	}
	return png, nil
}

// Errors returns what the page reported as an error so far, one line each: console.error
// and failed console.assert calls, uncaught exceptions, and the browser's own error log
// entries (a resource that failed to load, a content security policy violation).
func (p *Page) Errors() []string {
	var out []string
	for _, e := range p.b.Events(p.SessionID) {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var c struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Params, &c) == nil && (c.Type == "error" || c.Type == "assert") {
				var parts []string
				for _, a := range c.Args {
					if a.Value != nil {
						parts = append(parts, fmt.Sprint(a.Value))
					} else {
						parts = append(parts, a.Description)
					}
				}
				out = append(out, "console."+c.Type+": "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var x struct {
				Details exceptionDetails `json:"exceptionDetails"`
			}
			if json.Unmarshal(e.Params, &x) == nil {
				out = append(out, "exception: "+x.Details.String())
			}
		case "Log.entryAdded":
			var l struct {
				Entry struct {
					Level  string `json:"level"`
					Source string `json:"source"`
					Text   string `json:"text"`
					URL    string `json:"url"`
				} `json:"entry"`
			}
			if json.Unmarshal(e.Params, &l) == nil && l.Entry.Level == "error" {
				line := "log (" + l.Entry.Source + "): " + l.Entry.Text
				if l.Entry.URL != "" {
					line += " [" + l.Entry.URL + "]"
				}
				out = append(out, line)
			}
		}
	}
	return out
}

// exceptionDetails is the protocol's description of a thrown exception.
type exceptionDetails struct {
	Text      string `json:"text"`
	Exception *struct {
		Description string `json:"description"`
	} `json:"exception"`
}

func (d exceptionDetails) String() string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Text + " " + d.Exception.Description
	}
	return d.Text
}

// tailBuffer keeps the last max bytes written to it: the end of Chromium's stderr, to explain
// a browser that died.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

// suffix is the buffer as a suffix for an error message: empty, or "; stderr: …".
func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := bytes.TrimSpace(t.b)
	if len(s) == 0 {
		return ""
	}
	return "; stderr: " + string(s)
}
