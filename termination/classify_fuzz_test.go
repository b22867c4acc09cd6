package termination

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"
)

// clsFuzzError builds an error from fuzz input: an *APIError, wrapped, joined or carrying a
// parked reason according to the bits of shape.
func clsFuzzError(text string, status int, name, body string, shape uint8) error {
	var err error = &APIError{Status: status, Name: name, Message: text, Body: body}
	if shape&1 != 0 {
		err = fmt.Errorf("turn: %w", err)
	}
	if shape&2 != 0 {
		err = errors.Join(errors.New(text), err)
	}
	if shape&4 != 0 {
		err = Replace(err, Reason{Site: SiteTurnError}) // parked, no category
	}
	if shape&8 != 0 {
		err = errors.New(text + " " + body) // prose only, which is never read
	}
	return err
}

// FuzzClassify: whatever the error says, Classify does not panic, answers a valid category,
// answers the same twice, invents no provider, and reads nothing from a plain Go error.
func FuzzClassify(f *testing.F) {
	f.Add("slow down", 429, "", "", uint8(0))
	f.Add("prompt is too long: 210000 tokens > 200000 maximum", 400, "", "", uint8(1))
	f.Add("Request too large on tokens per minute (TPM): Limit 6000, Requested 20000", 413, "", "", uint8(4))
	f.Add("Input is too long, maximum 500 characters.", 0, "ToolException", "", uint8(1))
	f.Add("x", 200, "", `{"error":{"code":429,"message":"m"}}`, uint8(0))
	f.Add("api-timeout-investigation.pdf", 400, "", `[{"error":{"message":"\ud83d"}}]`, uint8(8))
	f.Add("\xff\xfe", -1, "AbortError", "{", uint8(15))
	for _, fx := range clsReadFixtures(f) {
		f.Add("", fx.status, "", fx.body, uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, status int, name, body string, shape uint8) {
		err := clsFuzzError(text, status, name, body, shape)
		got := Classify(err)
		if !got.Category.Valid() {
			t.Fatalf("invalid category %q", got.Category)
		}
		if again := Classify(err); again != got {
			t.Fatalf("not deterministic: %+v then %+v", got, again)
		}
		if got.Provider != "" {
			t.Fatalf("provider %q invented", got.Provider)
		}
		if shape&8 != 0 && got.Category != Unknown {
			t.Fatalf("plain Go error text was read: %+v", got)
		}
		// The detail is the status, else the class name as given (which may be a number).
		if n, convErr := strconv.Atoi(got.Detail); convErr == nil && got.Detail != name && got.Category != Unknown && (n < 100 || n >= 600) {
			t.Fatalf("detail %q is not an HTTP status", got.Detail)
		}
	})
}

// FuzzParseErrorBody: ParseErrorBody never fails or panics, keeps what it was given, and keeps
// its bounds.
func FuzzParseErrorBody(f *testing.F) {
	for _, fx := range clsReadFixtures(f) {
		f.Add(fx.provider, fx.status, fx.body)
	}
	f.Add("x", 0, `{"error":{"message":"\u0041\ud83d\ude00\ud800","code":429}}`)
	f.Add("x", 200, `[{"error":{"status_code":400,"details":[{"retryDelay":"1.5s"}]}}]`)
	f.Add("x", 0, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`)
	f.Add("x", 0, `{"error":{"message":"try again in 9999999h"}}`)
	f.Add("x", 0, `"{\"error\":\"{\\\"error\\\":{\\\"message\\\":\\\"deep\\\"}}\"}"`)
	f.Add("x", 0, "\xef\xbb\xbf{}")
	f.Fuzz(func(t *testing.T, provider string, status int, body string) {
		e := ParseErrorBody(provider, status, body)
		if e == nil {
			t.Fatal("nil APIError")
		}
		if e.Provider != provider || e.Body != body || e.Name != "" {
			t.Fatalf("inputs not kept: %+v", e)
		}
		if e.Status != status && (status >= 400 || e.Status < 400 || e.Status >= 600) {
			t.Fatalf("status %d became %d", status, e.Status)
		}
		if e.RetryAfter < 0 || e.RetryAfter > 24*time.Hour {
			t.Fatalf("RetryAfter %v out of range", e.RetryAfter)
		}
		if utf8.ValidString(body) && !utf8.ValidString(e.Message) {
			t.Fatalf("valid body, invalid Message %q", e.Message)
		}
		if c := Classify(e); !c.Category.Valid() || c.Provider != provider {
			t.Fatalf("Classify(parsed) = %+v", c)
		}
	})
}
