package model

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate/termination"
)

// ErrMalformedResponse is returned (wrapped) when a provider answers with success but the
// answer is not in the provider's success format (not JSON, no choices, an unexpected shape).
// Such an error carries the reason provider_error: the provider, not the request, is at fault.
var ErrMalformedResponse = errors.New("malformed model response")

// maxBody bounds how much of a response body is read: far more than any one-shot answer or
// error body, small enough that a misbehaving server cannot exhaust memory.
const maxBody = 8 << 20

// endpoint is one HTTP model endpoint: where to post, with which headers, and the names that
// go into errors and responses.
type endpoint struct {
	http            *http.Client
	provider, model string
	url             string
	header          http.Header // read-only after New
}

// post sends payload as JSON and returns the body of a 2xx answer. A non-2xx answer is an
// error wrapping the *termination.APIError parsed from its body, with RetryAfter read off the
// headers; a transport failure is an error wrapping the transport's. Both carry a reason.
func (e *endpoint) post(ctx context.Context, payload any) ([]byte, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, e.fail(fmt.Errorf("encoding request: %w", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(data))
	if err != nil {
		return nil, e.fail(err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")

	resp, err := e.http.Do(req)
	if err != nil {
		return nil, e.fail(err)
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The status and whatever body arrived say more than a failed read would.
		return nil, e.failBody(resp.StatusCode, resp.Header, body)
	}
	if readErr != nil {
		return nil, e.fail(fmt.Errorf("reading response: %w", readErr))
	}
	if len(body) > maxBody {
		return nil, e.malformed(fmt.Errorf("response body exceeds %d bytes", maxBody))
	}
	return body, nil
}

// failBody returns the error for an error body: the provider's status, body and retry hint as
// a *termination.APIError, wrapped and classified. The Retry-After headers beat a hint the
// body's prose gives ("Please try again in 151ms"), which ParseErrorBody reads.
func (e *endpoint) failBody(status int, h http.Header, body []byte) error {
	apiErr := termination.ParseErrorBody(e.provider, status, string(body))
	if d := retryAfter(h, time.Now()); d > 0 {
		apiErr.RetryAfter = d
	}
	return e.fail(apiErr)
}

func (e *endpoint) fail(err error) error      { return fail(e.provider, e.model, err) }
func (e *endpoint) malformed(err error) error { return malformed(e.provider, e.model, err) }
func (e *endpoint) response(text, finish, answeredBy string) Response {
	return Response{Text: text, FinishReason: strings.ToLower(finish), Provider: e.provider, Model: cmp.Or(answeredBy, e.model)}
}

// fail wraps err with the provider and model, and attaches the reason the termination
// classifier reads off it.
func fail(provider, model string, err error) error {
	err = fmt.Errorf("model: %s:%s: %w", provider, model, err)
	return termination.Attach(err, termination.New(termination.SiteModelCall, termination.SourceException, termination.Classify(err)))
}

// malformed wraps err with the provider, model and [ErrMalformedResponse], and attaches a
// provider_error reason: a success status with an unreadable body is the provider's fault,
// which no reading of the text would find.
func malformed(provider, model string, err error) error {
	err = fmt.Errorf("model: %s:%s: %w: %w", provider, model, ErrMalformedResponse, err)
	return termination.Attach(err, termination.New(termination.SiteModelCall, termination.SourceException,
		termination.Classification{Category: termination.ProviderError, Provider: provider, Detail: "malformed response"}))
}

// retryAfter reads the provider's retry hint: retry-after-ms (milliseconds, as OpenAI sends
// it) first, then Retry-After as delay-seconds or an HTTP date. A date is measured from the
// response's own Date header when it has one, so clock skew between the two hosts does not
// matter, and from now otherwise. Absent, unreadable or past hints are zero.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < math.MaxInt64/float64(time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < math.MaxInt64/float64(time.Second) {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	if d := at.Sub(now); d > 0 {
		return d
	}
	return 0
}
