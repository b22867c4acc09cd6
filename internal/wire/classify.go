package wire

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate/termination"
)

// Reason is a termination reason as the classify operations write it, with the retry posture
// its category implies spelled out. Category is a pointer so that "the payload carried no stop
// token" is written as null rather than invented.
type Reason struct {
	Category             *termination.Category `json:"category"`
	Source               termination.Source    `json:"source"`
	Site                 termination.Site      `json:"site"`
	Detail               string                `json:"detail"`
	Provider             string                `json:"provider"`
	RetryableAsIs        bool                  `json:"retryable_as_is"`
	RetryableAfterRemedy bool                  `json:"retryable_after_remedy"`
	Remedy               termination.Remedy    `json:"remedy"`
	// RetryAfterMS is the delay the provider asked for before a retry, in milliseconds;
	// omitted when it named none.
	RetryAfterMS int64 `json:"retry_after_ms,omitempty"`
}

// NewReason returns r as written.
func NewReason(r termination.Reason) Reason {
	c := r.Category
	p := r.Posture()
	return Reason{
		Category: &c, Source: r.Source, Site: r.Site, Detail: r.Detail, Provider: r.Provider,
		RetryableAsIs: p.RetryableAsIs, RetryableAfterRemedy: p.RetryableAfterRemedy, Remedy: p.Remedy,
		RetryAfterMS: r.RetryAfter.Milliseconds(),
	}
}

// ErrorInput describes an error a run ended on: the input of `stopgate classify error` and
// POST /v1/classify/error.
//
//	{"provider": "openai", "status": 429, "body": "raw body or message", "name": "RateLimitError",
//	 "type": "...", "code": "...", "message": "...", "headers": {"retry-after": "7"}}
type ErrorInput struct {
	// Provider is the provider family whose shape Body is read in.
	Provider string `json:"provider"`
	// Status is the HTTP status, as a number or a numeric string.
	Status json.RawMessage `json:"status"`
	// Body is the raw response body as a JSON string, or the body itself as a JSON value.
	Body json.RawMessage `json:"body"`
	// Name is an error class name ("RateLimitError", "AbortError").
	Name string `json:"name"`
	// Type, Code and Message override what the body says; Code may be a string or a number.
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	// Headers are response headers, where the caller kept them; retry-after (seconds or an
	// HTTP date) and retry-after-ms are read. Names are matched case-insensitively.
	Headers map[string]string `json:"headers"`
}

// APIError builds the error description in names, in the shape the termination classifier
// reads. It fails when the status or the body cannot be read.
func (in ErrorInput) APIError() (*termination.APIError, error) {
	status, err := parseStatus(in.Status)
	if err != nil {
		return nil, err
	}
	body, err := parseBody(in.Body)
	if err != nil {
		return nil, err
	}
	e := termination.ParseErrorBody(in.Provider, status, body)
	if in.Name != "" {
		e.Name = in.Name
	}
	if in.Type != "" {
		e.Type = in.Type
	}
	if code := jsonScalar(in.Code); code != "" {
		e.Code = code
	}
	if in.Message != "" {
		e.Message = in.Message
	}
	if d := retryAfterHeader(in.Headers, time.Now()); d > 0 {
		e.RetryAfter = d
	}
	return e, nil
}

// retryAfterHeader reads the retry-after-ms or retry-after header; zero when neither is
// readable.
func retryAfterHeader(h map[string]string, now time.Time) time.Duration {
	for k, v := range h {
		if strings.EqualFold(k, "retry-after-ms") {
			if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 && ms <= 24*3600*1000 {
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	for k, v := range h {
		if strings.EqualFold(k, "retry-after") {
			if d, ok := termination.ParseRetryAfter(v, now); ok {
				return d
			}
		}
	}
	return 0
}

// ClassifyError classifies the error in describes.
func ClassifyError(in ErrorInput) (Reason, error) {
	apiErr, err := in.APIError()
	if err != nil {
		return Reason{}, err
	}
	r := termination.New(termination.SiteClassifyError, termination.SourceException, termination.Classify(apiErr))
	return NewReason(r), nil
}

// StopInput is a provider response fragment: the input of `stopgate classify stop` and
// POST /v1/classify/stop.
//
//	{"provider": "anthropic", "payload": {"stop_reason": "max_tokens"}}
type StopInput struct {
	// Provider is the provider family, where known.
	Provider string `json:"provider"`
	// Payload is a whole response, one stream event, or just its metadata.
	Payload any `json:"payload"`
}

// ClassifyStop says what the stop or finish token in in's payload means. When the payload
// carries no token at all, the Reason's Category is nil.
func ClassifyStop(in StopInput) Reason {
	c, ok := termination.ClassifyStop(in.Provider, NormalizeNumbers(in.Payload))
	if !ok {
		return Reason{Source: termination.SourceMetadata, Site: termination.SiteClassifyStop, Provider: in.Provider}
	}
	return NewReason(termination.New(termination.SiteClassifyStop, termination.SourceMetadata, c))
}
