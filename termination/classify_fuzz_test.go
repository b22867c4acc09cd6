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
		err = errors.New(text + " " + body) // the CLI's case: prose only
	}
	return err
}

// FuzzClassify: whatever the error says, Classify does not panic, answers a valid category,
// agrees with IsContextOverflow and ContextOverflowArms, and answers the same twice.
func FuzzClassify(f *testing.F) {
	f.Add("slow down", 429, "", "", uint8(0))
	f.Add("prompt is too long: 210000 tokens > 200000 maximum", 400, "", "", uint8(1))
	f.Add("Provider returned error", 400, "OpenRouterError", openRouterBody(anthropicUpstream, "Anthropic"), uint8(2))
	f.Add("", 400, "RequestError", googleOverflowBody(true, "1048576"), uint8(3))
	f.Add("Request too large on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000", 429, "", "", uint8(0))
	f.Add("Request too large on tokens per minute (TPM): Limit 6000, Requested 20000", 413, "", "", uint8(4))
	f.Add("", 429, "", geminiQuota429("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "m", "limit: 50"), uint8(0))
	f.Add("Input is too long, maximum 500 characters.", 0, "ToolException", "", uint8(1))
	f.Add("x", 200, "", `{"error":{"code":429,"message":"m"}}`, uint8(0))
	f.Add("api-timeout-investigation.pdf", 400, "", `[{"error":{"message":"\ud83d"}}]`, uint8(8))
	f.Add("\xff\xfe", -1, "AbortError", "{", uint8(15))
	for _, fx := range clsReadFixtures(f) {
		f.Add("", fx.status, "", fx.body, uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, status int, name, body string, shape uint8) {
		err := clsFuzzError(text, status, name, body, shape)

		// The pipeline without Classify's recover, so a panic of ours is not masked.
		var ev evidence
		var inner Classification
		if ev.gather(err) {
			inner = committedClassification(ev.committed)
		} else {
			var buf [512]byte
			inner = ev.classify(ev.readText(buf[:0]))
		}

		got := Classify(err)
		if got != inner {
			t.Fatalf("Classify = %+v, pipeline = %+v", got, inner)
		}
		if !got.Category.Valid() {
			t.Fatalf("invalid category %q", got.Category)
		}
		if again := Classify(err); again != got {
			t.Fatalf("not deterministic: %+v then %+v", got, again)
		}
		if over := IsContextOverflow(err); over != (got.Category == ContextOverflow) {
			t.Fatalf("IsContextOverflow = %t, Classify = %s", over, got.Category)
		}
		if arms := ContextOverflowArms(err); len(arms) > 0 && got.Category != ContextOverflow {
			t.Fatalf("arms %q matched but Classify = %s", arms, got.Category)
		}
		if got.Provider != "" {
			t.Fatalf("provider %q invented", got.Provider)
		}
		switch got.Category {
		case RateLimited, AuthFailed, Timeout, ProviderError, InvalidRequest:
			// A status-driven detail is the status the error carries.
			if n, convErr := strconv.Atoi(got.Detail); convErr == nil && (n < 100 || n >= 600) {
				t.Fatalf("detail %q is not an HTTP status", got.Detail)
			}
		}
	})
}

// FuzzParseErrorBody: ParseErrorBody never fails or panics, keeps what it was given, and its
// JSON reader agrees with encoding/json.
func FuzzParseErrorBody(f *testing.F) {
	for _, fx := range clsReadFixtures(f) {
		f.Add(fx.provider, fx.status, fx.body)
	}
	f.Add("openrouter", 400, openRouterBody(openaiUpstream, "OpenAI"))
	f.Add("x", 0, `{"error":{"message":"\u0041\ud83d\ude00\ud800","code":429}}`)
	f.Add("x", 200, `[{"error":{"status_code":400,"details":[{"retryDelay":"1.5s"}]}}]`)
	f.Add("x", 0, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`)
	f.Add("x", 0, `{"error":{"message":"try again in 9999999h"}}`)
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
		var fields bodyFields
		fields.read(body)
		if !fields.json && e.Message != plainMessage(body) {
			t.Fatalf("plain body: Message %q", e.Message)
		}
		if utf8.ValidString(body) && !utf8.ValidString(e.Message) {
			t.Fatalf("valid body, invalid Message %q", e.Message)
		}
		clsOracleCheck(t, body)
		if c := Classify(e); !c.Category.Valid() || c.Provider != provider {
			t.Fatalf("Classify(parsed) = %+v", c)
		}
	})
}
