package termination

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Classification is what a feeder produces, before a site is attached to it.
type Classification struct {
	// Category is the taxonomy member.
	Category Category
	// Provider is the provider family, where the classification knew one ("openai",
	// "anthropic", "google", …); empty when it did not.
	Provider string
	// Detail is the raw token the classification was made from: a finish reason, a stop
	// reason, an error name or an HTTP status. Diagnostic only, never the carrier of the
	// classification itself.
	Detail string
	// RetryAfter is the delay the provider asked for (a Retry-After header, a retryDelay, "try
	// again in 7s"); zero when it named none.
	RetryAfter time.Duration
}

// Reason is why a run ended, as one value.
//
// Its posture is not stored: [Reason.Posture] reads it from the one table by category, so a
// Reason cannot carry a posture its category does not have, however it was built. Build reasons
// with [New].
type Reason struct {
	// Category is the taxonomy member.
	Category Category
	// Site is where the classification was made.
	Site Site
	// Source is which feeder classified it.
	Source Source
	// Provider is the provider family, where known.
	Provider string
	// Detail is the raw token the classification was made from, where there was one.
	Detail string
	// RetryAfter is the delay the provider asked for before a retry; zero when it named none.
	RetryAfter time.Duration
}

// New builds a Reason by attaching a site and a source to a classification. It is the one
// constructor every site uses; a category outside the vocabulary is recorded as [Unknown] with
// the unrecognised string kept in Detail, so nothing is lost and nothing is invented.
func New(site Site, source Source, c Classification) Reason {
	r := Reason{Category: c.Category, Site: site, Source: source, Provider: c.Provider, Detail: c.Detail, RetryAfter: c.RetryAfter}
	if !r.Category.Valid() {
		if r.Detail == "" {
			r.Detail = string(c.Category)
		}
		r.Category = Unknown
	}
	return r
}

// Control builds the Reason for a run the runtime itself ended (a gate, a guard, a completion):
// New(site, SourceControl, Classification{Category: c}).
func Control(site Site, c Category) Reason {
	return New(site, SourceControl, Classification{Category: c})
}

// Classification returns the reason without its site and source.
func (r Reason) Classification() Classification {
	return Classification{Category: r.Category, Provider: r.Provider, Detail: r.Detail, RetryAfter: r.RetryAfter}
}

// Posture returns the retry posture of the reason's category.
func (r Reason) Posture() Posture { return PostureOf(r.Category) }

// RetryableAsIs reports whether sending the identical request again is sane.
func (r Reason) RetryableAsIs() bool { return r.Posture().RetryableAsIs }

// RetryableAfterRemedy reports whether a retry is worthwhile once [Reason.Remedy] is applied.
func (r Reason) RetryableAfterRemedy() bool { return r.Posture().RetryableAfterRemedy }

// Remedy names the change a retry needs first; empty when no retry is worthwhile.
func (r Reason) Remedy() Remedy { return r.Posture().Remedy }

// IsZero reports whether r is the zero Reason (no reason at all).
func (r Reason) IsZero() bool { return r == Reason{} }

// String renders the reason on one line, in the form category@site followed by the source,
// the posture and whatever provider and detail are known; suitable for logs.
func (r Reason) String() string {
	var b strings.Builder
	p := r.Posture()
	fmt.Fprintf(&b, "%s@%s source=%s retryable_as_is=%t retryable_after_remedy=%t",
		r.Category, r.Site, r.Source, p.RetryableAsIs, p.RetryableAfterRemedy)
	if p.Remedy != "" {
		fmt.Fprintf(&b, " remedy=%s", p.Remedy)
	}
	if r.Provider != "" {
		fmt.Fprintf(&b, " provider=%s", r.Provider)
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, " detail=%q", r.Detail)
	}
	if r.RetryAfter > 0 {
		fmt.Fprintf(&b, " retry_after=%s", r.RetryAfter)
	}
	return b.String()
}

// reasonJSON is the wire form of a Reason: snake_case, posture spelled out for readers that do
// not have the table, provider, detail and retry-after (in milliseconds) omitted when unknown.
type reasonJSON struct {
	Category             string `json:"category"`
	Site                 Site   `json:"site"`
	Source               Source `json:"source"`
	RetryableAsIs        bool   `json:"retryable_as_is"`
	RetryableAfterRemedy bool   `json:"retryable_after_remedy"`
	Remedy               Remedy `json:"remedy,omitempty"`
	Provider             string `json:"provider,omitempty"`
	Detail               string `json:"detail,omitempty"`
	RetryAfterMS         int64  `json:"retry_after_ms,omitempty"`
}

// MarshalJSON writes the reason with its posture spelled out.
func (r Reason) MarshalJSON() ([]byte, error) {
	p := r.Posture()
	return json.Marshal(reasonJSON{
		Category: string(r.Category), Site: r.Site, Source: r.Source,
		RetryableAsIs: p.RetryableAsIs, RetryableAfterRemedy: p.RetryableAfterRemedy, Remedy: p.Remedy,
		Provider: r.Provider, Detail: r.Detail, RetryAfterMS: r.RetryAfter.Milliseconds(),
	})
}

// UnmarshalJSON reads a reason. The posture fields are ignored: the posture always comes from
// the table, so a stored or forged posture cannot disagree with the category. A category this
// binary does not know (one a newer binary wrote) reads as [Unknown], its spelling kept in
// Detail when Detail is empty; an absent category stays empty (a reason with no category,
// which [ReasonOf] passes over).
func (r *Reason) UnmarshalJSON(b []byte) error {
	var w reasonJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("termination: reason: %w", err)
	}
	if w.Source != "" && !w.Source.Valid() {
		return fmt.Errorf("termination: reason source %q: %w", w.Source, ErrUnknownValue)
	}
	*r = Reason{Category: Category(w.Category), Site: w.Site, Source: w.Source, Provider: w.Provider, Detail: w.Detail,
		RetryAfter: time.Duration(w.RetryAfterMS) * time.Millisecond}
	if w.Category != "" && !r.Category.Valid() {
		if r.Detail == "" {
			r.Detail = w.Category
		}
		r.Category = Unknown
	}
	return nil
}
