package wire

import (
	"encoding/json"

	"github.com/stopgate/stopgate/toolcall"
)

// SalvageInput is a rejected tool call's error response: the input of `stopgate salvage` and
// POST /v1/salvage.
//
//	{"status": 400, "body": "raw error body", "marker": "suggest_followups", "no_tools": false}
type SalvageInput struct {
	// Status is the HTTP status, as a number or a numeric string.
	Status json.RawMessage `json:"status"`
	// Body is the raw body as a JSON string, or the body itself as a JSON value.
	Body json.RawMessage `json:"body"`
	// Marker names the end-of-turn marker tool; empty means suggest_followups.
	Marker string `json:"marker"`
	// NoTools says the request carried no tools: a parse failure then salvages nothing.
	NoTools bool `json:"no_tools"`
}

// Salvaged is what [Salvage] recovered. Its JSON always has "followups", so readers need not
// test for its presence.
type Salvaged struct{ toolcall.Salvaged }

// MarshalJSON writes the salvage output, with "followups" as [] when there are none.
func (s Salvaged) MarshalJSON() ([]byte, error) {
	followups := s.Followups
	if followups == nil {
		followups = []string{}
	}
	return json.Marshal(struct {
		Salvaged  bool             `json:"salvaged"`
		Content   string           `json:"content"`
		Followups []string         `json:"followups"`
		Failure   toolcall.Failure `json:"failure"`
		Why       string           `json:"why"`
	}{s.OK, s.Content, followups, s.Failure, s.Why})
}

// Salvage recovers the model's complete answer from the rejected call in describes, where it
// can be. It fails when the status or the body cannot be read.
func Salvage(in SalvageInput) (Salvaged, error) {
	status, err := parseStatus(in.Status)
	if err != nil {
		return Salvaged{}, err
	}
	body, err := parseBody(in.Body)
	if err != nil {
		return Salvaged{}, err
	}
	return Salvaged{toolcall.Salvage(status, body, &toolcall.SalvageOptions{Marker: in.Marker, NoTools: in.NoTools})}, nil
}
