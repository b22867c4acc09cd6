package termination_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stopgate/stopgate/termination"
)

func ExampleClassifyStop() {
	for _, body := range []string{
		`{"type":"message","role":"assistant","content":[],"stop_reason":"max_tokens"}`,
		`{"candidates":[{"content":{"role":"model"},"finishReason":"SAFETY","index":0}]}`,
		`{"object":"chat.completion","choices":[{"index":0,"finish_reason":"stop"}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
	} {
		var fragment any
		if err := json.Unmarshal([]byte(body), &fragment); err != nil {
			panic(err)
		}
		c, ok := termination.ClassifyStop("", fragment)
		if !ok {
			fmt.Println("no stop token")
			continue
		}
		r := termination.New(termination.SiteClassifyStop, termination.SourceMetadata, c)
		fmt.Println(r)
	}
	// Output:
	// output_truncated@classify.stop source=metadata retryable_as_is=false retryable_after_remedy=true remedy=change-request provider=anthropic detail="max_tokens"
	// content_refusal@classify.stop source=metadata retryable_as_is=false retryable_after_remedy=true remedy=change-request provider=google detail="safety"
	// completed@classify.stop source=metadata retryable_as_is=false retryable_after_remedy=false detail="stop"
	// no stop token
}

func ExampleDetectStopMetadata() {
	var msg any
	if err := json.Unmarshal([]byte(`{"content":"…","response_metadata":{"finish_reason":"length"}}`), &msg); err != nil {
		panic(err)
	}
	if c, ok := termination.DetectStopMetadata("groq", msg); ok {
		fmt.Println(c.Category, c.Provider, c.Detail)
	}
	// Output:
	// output_truncated groq length
}

func ExampleObservationLog() {
	var log termination.ObservationLog // the zero value keeps up to 1000 a turn
	at := time.Date(2026, 9, 10, 14, 3, 7, 0, time.FixedZone("NZST", 12*3600))
	for _, body := range []string{
		`{"choices":[{"index":0,"finish_reason":"tool_calls"}]}`,
		`{"choices":[{"index":0,"finish_reason":null}]}`,
	} {
		var fragment any
		if err := json.Unmarshal([]byte(body), &fragment); err != nil {
			panic(err)
		}
		log.Record(termination.Observe(at, termination.PathStream, fragment))
		at = at.Add(2 * time.Second)
	}
	for _, o := range log.Observations() {
		b, _ := json.Marshal(o)
		fmt.Println(string(b))
	}
	fmt.Println("dropped:", log.Dropped())
	log.Reset() // the turn ended
	fmt.Println("after reset:", log.Len())
	// Output:
	// {"at":"2026-09-10T02:03:07Z","path":"stream","token":"tool_calls"}
	// {"at":"2026-09-10T02:03:09Z","path":"stream","token":null}
	// dropped: 0
	// after reset: 0
}

func ExampleDetectTurnStopMetadata() {
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			panic(err)
		}
		return v
	}
	turn := []termination.TurnMessage{
		// The agent's answer ran out of tokens...
		{Fragment: decode(`{"additional_kwargs":{"finishReason":"MAX_TOKENS"}}`)},
		// ...and a rating middleware's own model call after it finished normally.
		{Fragment: decode(`{"additional_kwargs":{"finishReason":"STOP"}}`), Hook: termination.IsHookNode("rating.after_model")},
	}
	c, ok := termination.DetectTurnStopMetadata("google", turn)
	fmt.Println(c.Category, c.Detail, ok)
	// Output:
	// output_truncated max_tokens true
}
