package termination_test

import (
	"errors"
	"fmt"

	"github.com/stopgate/stopgate/termination"
)

func ExampleClassify() {
	// A provider's error response, described as data.
	body := `{"error":{"message":"Rate limit reached for model llama-3.1-8b-instant on tokens per minute (TPM): Limit 6000, Used 5034, Requested 1443. Please try again in 4.77s.","type":"tokens","code":"rate_limit_exceeded"}}`
	err := fmt.Errorf("model call: %w", termination.ParseErrorBody("groq", 429, body))

	c := termination.Classify(err)
	r := termination.New(termination.SiteModelCall, termination.SourceException, c)
	fmt.Println(c.Category, c.Provider, c.Detail)
	fmt.Println(r.RetryableAsIs(), r.RetryableAfterRemedy(), r.Remedy())
	// Output:
	// rate_limited groq 429
	// false true back-off
}

func ExampleClassify_committed() {
	// A site that watched the failure commits its classification; the text is then never read,
	// so a filename in the message cannot turn a rejection into a retryable timeout.
	rejected := &termination.APIError{Provider: "groq", Status: 400, Message: `could not read "api-timeout-investigation.pdf"`}
	fmt.Println(termination.Classify(rejected).Category)

	reason := termination.New(termination.SiteModelCall, termination.SourceException,
		termination.Classification{Category: termination.InvalidRequest, Provider: "groq", Detail: "400"})
	fmt.Println(termination.Classify(termination.Attach(rejected, reason)).Category)
	// Output:
	// timeout
	// invalid_request
}

func ExampleIsContextOverflow() {
	typed := fmt.Errorf("%w: 210000 tokens > 200000", termination.ErrContextOverflow)
	prose := errors.New("prompt is too long: 210000 tokens > 200000 maximum")
	tool := errors.New("Input is too long, maximum 500 characters.")
	fmt.Println(termination.IsContextOverflow(typed), termination.IsContextOverflow(prose), termination.IsContextOverflow(tool))
	// Output: true true false
}

func ExampleContextOverflowArms() {
	err := termination.ParseErrorBody("groq", 400,
		`{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages"}}`)
	fmt.Println(termination.ContextOverflowArms(err))
	// Output: [reduce the length of the messages]
}

func ExampleParseErrorBody() {
	e := termination.ParseErrorBody("google", 400,
		`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}`)
	fmt.Println(e.Type, e.Code)
	fmt.Println(termination.Classify(e))
	// Output:
	// INVALID_ARGUMENT API_KEY_INVALID
	// {auth_failed google API_KEY_INVALID}
}
