package toolcall

import (
	"encoding/json"
	"strings"
)

// DefaultMarker is the end-of-turn marker tool's name when [SalvageOptions] names none: the
// tool a turn ends with to offer follow-up suggestions.
const DefaultMarker = "suggest_followups"

// SalvageOptions configures [Salvage]. The zero value, like a nil pointer, uses the defaults.
type SalvageOptions struct {
	// Marker is the end-of-turn marker tool's name; empty means [DefaultMarker]. A rejected call
	// to the marker does not stop a salvage; a rejected call to any other tool does.
	Marker string
	// NoTools says the request carried no tools. A parse failure of such a request (Groq's
	// output_parse_failed) is never salvaged: what it kept is the model's reasoning or
	// planning, not an answer.
	NoTools bool
}

func (o *SalvageOptions) noTools() bool { return o != nil && o.NoTools }

func (o *SalvageOptions) marker() string {
	if o == nil || o.Marker == "" {
		return DefaultMarker
	}
	return o.Marker
}

// Salvaged is what [Salvage] recovered, or why it recovered nothing. Its JSON form is the
// `stopgate salvage` output line.
type Salvaged struct {
	// OK reports whether a complete answer was recovered. When OK, Content is not empty.
	OK bool `json:"salvaged"`
	// Content is the model's answer with every tool-call artifact removed; empty unless OK.
	Content string `json:"content"`
	// Followups are the follow-up prompts from the marker call's arguments, in order, when it
	// carried any that parse; labels are dropped. Nil unless OK.
	Followups []string `json:"followups,omitempty"`
	// Failure is the kind of failure the body reports, whether or not anything was salvaged;
	// [Failure.Recovery] says what to do when OK is false.
	Failure Failure `json:"failure"`
	// Why says in one line how the verdict was reached.
	Why string `json:"why"`
}

// Salvage recovers the model's complete answer from the error response of a rejected tool
// call. OpenAI-compatible providers (Groq and kin) reject the call but keep what the model
// generated in the body's failed_generation field, where a finished answer is often sitting:
// the model wrapped its end-of-turn marker call in a tag the API does not accept.
//
// It recovers an answer only when the body is a [ToolUseFailed] failure whose generation holds
// no tool call, or only calls to the end-of-turn marker (opts.Marker); or a [SchemaValidation]
// failure that kept the generation, when the call that failed validation was the marker's (its
// arguments failing does not spoil the answer beside them). A rejected call to a real tool is
// never "answered" with its introductory prose, and neither is a call whose tool cannot be
// told: the caller fails over instead. An empty failed_generation is a failure, not an empty
// answer, and so is a provider diagnostic standing in for the generation ("Tool use failed:
// JSON does not match the expected schema").
//
// The body is read in every shape seen in the wild: {"error":{...}} JSON, a bare error object,
// an SSE error event, JSON behind a client library's prefix ("Error code: 400 - {...}"), a
// proxy's message holding the upstream body as a string, Python's and JavaScript's renderings
// of the object, and text that is not JSON at all. The generation is read in every call form
// seen: <function=name args</function> and <function=name>args</function> tags, a name glued
// to its arguments (web_search{...}</function>, <function=message{...}), <tool_call> and
// <tool-use> blocks, JSON tool_calls (fenced or bare), and the Kimi and Gemma token forms.
func Salvage(status int, body string, opts *SalvageOptions) Salvaged {
	e := parseErrorBody(body)
	f := classify(status, body, e)
	out := Salvaged{Failure: f}
	switch {
	case f == Other:
		out.Why = "not salvaged: not a tool-calling failure (recovery: none)"
		return out
	case f == SchemaValidation && e.hasGeneration:
		// The call failed validation, but the generation is there: if the call was only the
		// marker, the answer beside it is whole.
	case f != ToolUseFailed:
		out.Why = "not salvaged: a " + string(f) + " failure, not a rejected call (recovery: " + string(f.Recovery()) + ")"
		return out
	case !e.hasGeneration:
		out.Why = "not salvaged: the body has no failed_generation"
		return out
	}
	if strings.EqualFold(e.code, "output_parse_failed") || opts.noTools() {
		// A parse failure keeps what the model wrote when it was not making a call: its
		// reasoning or plan, not an answer. Without tools in the request nothing it kept is one.
		out.Why = "not salvaged: a parse failure's generation is the model's reasoning, not an answer"
		return out
	}
	gen := strings.TrimSpace(e.generation)
	if gen == "" {
		out.Why = "not salvaged: failed_generation is empty"
		return out
	}
	if hasPrefixFold(gen, "tool use failed:") {
		out.Why = "not salvaged: failed_generation holds a provider diagnostic, not the model's output"
		return out
	}
	g := analyzeGeneration(gen)
	marker := opts.marker()
	if g.unattributed {
		out.Why = "not salvaged: the generation holds tool-call syntax whose tool cannot be told, or too many calls to read"
		return out
	}
	if f == SchemaValidation {
		// The call that failed validation must be the marker's, by the message and by the
		// generation: a validation failure with no call in sight is some other tool's.
		if name := validatedTool(e.message); name != "" && name != marker {
			out.Why = "not salvaged: the call that failed validation is to " + quoteName(name) + ", a real tool"
			return out
		}
		if len(g.calls) == 0 {
			out.Why = "not salvaged: the call that failed validation is not in the generation"
			return out
		}
	}
	var followups []string
	for _, c := range g.calls {
		if c.name != marker {
			out.Why = "not salvaged: the rejected call is to " + quoteName(c.name) + ", a real tool"
			return out
		}
		followups = append(followups, followupPrompts(c.args)...)
	}
	if g.content == "" {
		out.Why = "not salvaged: the generation holds only the " + marker + " call, no answer"
		return out
	}
	if ok, why := deliverable(g.content); !ok {
		out.Why = "not salvaged: what is left is not an answer: " + why
		return out
	}
	out.OK, out.Content, out.Followups = true, g.content, followups
	if len(g.calls) == 0 {
		out.Why = "salvaged: the generation holds an answer and no tool call"
	} else {
		out.Why = "salvaged: the only rejected call is the end-of-turn marker " + marker
	}
	return out
}

// quoteName renders a tool name for a Why line, bounded so a hostile name cannot flood it.
func quoteName(name string) string {
	const limit = 64
	if len(name) > limit {
		name = strings.ToValidUTF8(name[:limit], "") + "…"
	}
	return `"` + name + `"`
}

// validatedTool returns the tool a validation message names ("parameters for tool X did not
// match schema"); "" when it names none.
func validatedTool(msg string) string {
	const lead = "parameters for tool "
	lower := strings.ToLower(msg)
	i := strings.Index(lower, lead)
	if i < 0 || len(lower) != len(msg) { // offsets into lower must hold in msg
		return ""
	}
	rest := msg[i+len(lead):]
	j := 0
	for j < len(rest) && isNameByte(rest[j]) {
		j++
	}
	return rest[:j]
}

// followupPrompts reads follow-up prompts from a marker call's arguments: an array, or an
// object with a "followups" array, possibly stringified; each item a string or an object with
// a non-empty "prompt". Anything that does not parse yields nothing.
func followupPrompts(args string) []string {
	v, ok := decodeFirst(args)
	if !ok {
		return nil
	}
	if s, isString := v.(string); isString {
		if v, ok = decodeFirst(s); !ok {
			return nil
		}
	}
	if m, isObject := v.(map[string]any); isObject {
		v = m["followups"]
	}
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		var p string
		switch x := it.(type) {
		case string:
			p = x
		case map[string]any:
			p, _ = x["prompt"].(string)
		}
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// decodeFirst decodes the first JSON value in s, ignoring whatever follows it.
func decodeFirst(s string) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
