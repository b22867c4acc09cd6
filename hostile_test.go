package stopgate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/termination"
)

// TestDecideHostileErrorText: through Decide, the text of a Go error that is not the
// provider's decides nothing: a test name, a path, x509 written as text, a JSON field name
// all come out unknown and end the run without a retry.
func TestDecideHostileErrorText(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("run: %w", errors.New("go test: FAIL TestRateLimit")),
		fmt.Errorf("read: %w", errors.New("open /srv/config/forbidden.txt: permission denied")),
		errors.New("x509: certificate signed by unknown authority"),
		fmt.Errorf("decode: %w", errors.New("json: cannot unmarshal string into Go struct field Config.timeout of type int")),
	} {
		d := New(Config{}).Decide(context.Background(), Turn{Err: err})
		if d.Verdict != Stop || d.Reason == nil || d.Reason.Category != termination.Unknown {
			t.Errorf("%v: verdict %s reason %v, want stop on unknown", err, d.Verdict, d.Reason)
		}
	}
}

// TestDecideRetryAfter: a provider's retry-after reaches the Decision and its message.
func TestDecideRetryAfter(t *testing.T) {
	err := termination.ParseErrorBody("openai", 500, `{"error":{"message":"The server had an error. Please try again in 7s.","type":"server_error"}}`)
	d := New(Config{}).Decide(context.Background(), Turn{Err: err})
	if d.Verdict != Retry || d.RetryAfter != 7*time.Second || d.Reason == nil || d.Reason.RetryAfter != 7*time.Second {
		t.Fatalf("decision %+v", d)
	}
	if !strings.Contains(d.Message, "wait 7s") {
		t.Errorf("message %q does not name the delay", d.Message)
	}
}
