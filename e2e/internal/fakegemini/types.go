package fakegemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Request is one HTTP request the server received, with its Gemini API body decoded.
type Request struct {
	fakeserver.Request

	// Model and Action are the path's /v1beta/models/{Model}:{Action}; empty for another path.
	Model, Action string
	// System is the system instruction's text, its parts joined by blank lines.
	System string
	// Contents is the conversation.
	Contents []Content
	// Tools are the function declarations offered to the model, across every tool entry.
	Tools []FunctionDeclaration
	// GenerationConfig is the body's generationConfig, as sent.
	GenerationConfig json.RawMessage

	// Response is what the script answered, for a generate request; nil otherwise.
	Response *Response
}

// Content is one turn of a Gemini API conversation.
type Content struct {
	Role  string `json:"role,omitempty"`
	Parts []Part `json:"parts"`
}

// Part is one part of a Content, in a request or in a scripted response. Which fields are set
// depends on the kind: text has Text (Thought marks a thought summary); a function call has
// FunctionCall; a function response has FunctionResponse.
type Part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	// ThoughtSignature is kept as sent; Gemini CLI fills in a placeholder on calls it replays.
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

// FunctionCall is a model's call of a declared function.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// FunctionResponse is the client's answer to a function call.
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response,omitempty"`
}

// Output returns the response's "output" string (Gemini CLI's tools answer with
// {"output": "..."}), else its "error" string, else its JSON.
func (f FunctionResponse) Output() string {
	var r map[string]json.RawMessage
	if json.Unmarshal(f.Response, &r) == nil {
		for _, k := range []string{"output", "error"} {
			var s string
			if json.Unmarshal(r[k], &s) == nil {
				return s
			}
		}
	}
	return string(f.Response)
}

// FunctionDeclaration is one function offered to the model.
type FunctionDeclaration struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the declaration's parametersJsonSchema (or parameters), as sent.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// Text returns the content's text parts (thoughts left out), joined by newlines.
func (c Content) Text() string {
	var parts []string
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Calls returns the content's function calls.
func (c Content) Calls() []FunctionCall {
	var out []FunctionCall
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			out = append(out, *p.FunctionCall)
		}
	}
	return out
}

// Responses returns the content's function responses.
func (c Content) Responses() []FunctionResponse {
	var out []FunctionResponse
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			out = append(out, *p.FunctionResponse)
		}
	}
	return out
}

// LastContent returns the conversation's last content; the zero Content when it has none.
func (r *Request) LastContent() Content {
	if len(r.Contents) == 0 {
		return Content{}
	}
	return r.Contents[len(r.Contents)-1]
}

// Texts returns the text of each content of role ("user" or "model") that has any, in order.
func (r *Request) Texts(role string) []string {
	var out []string
	for _, c := range r.Contents {
		if c.Role == role {
			if t := c.Text(); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// FunctionResponses returns every function response the conversation carries for the function
// name, in order.
func (r *Request) FunctionResponses(name string) []FunctionResponse {
	var out []FunctionResponse
	for _, c := range r.Contents {
		for _, f := range c.Responses() {
			if f.Name == name {
				out = append(out, f)
			}
		}
	}
	return out
}

// ToolNames returns the names of the functions offered to the model, in order.
func (r *Request) ToolNames() []string {
	out := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// HasTool reports whether the function name is offered to the model.
func (r *Request) HasTool(name string) bool { return slices.Contains(r.ToolNames(), name) }

// Generate reports whether the request asks for content: streamGenerateContent or
// generateContent.
func (r *Request) Generate() bool {
	return r.Method == http.MethodPost && (r.Action == "streamGenerateContent" || r.Action == "generateContent")
}

// wireRequest is the part of a GenerateContentRequest (or CountTokensRequest) the server reads.
type wireRequest struct {
	Contents          []Content `json:"contents"`
	SystemInstruction *struct {
		Parts []Part `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			Parameters           json.RawMessage `json:"parameters"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig json.RawMessage `json:"generationConfig"`
	// GenerateContentRequest is where countTokens nests a generate request.
	GenerateContentRequest *wireRequest `json:"generateContentRequest"`
}

// decode fills the request's decoded fields from Body.
func (r *Request) decode() error {
	if err := json.Unmarshal(r.Body, &r.JSON); err != nil {
		r.JSON = nil
		return fmt.Errorf("body is not a JSON object: %w", err)
	}
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return fmt.Errorf("body is not a Gemini API request: %w", err)
	}
	if w.GenerateContentRequest != nil && len(w.Contents) == 0 {
		w = *w.GenerateContentRequest
	}
	r.Contents = w.Contents
	if w.SystemInstruction != nil {
		var texts []string
		for _, p := range w.SystemInstruction.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		r.System = strings.Join(texts, "\n\n")
	}
	for _, t := range w.Tools {
		for _, f := range t.FunctionDeclarations {
			params := f.ParametersJSONSchema
			if len(params) == 0 {
				params = f.Parameters
			}
			r.Tools = append(r.Tools, FunctionDeclaration{Name: f.Name, Description: f.Description, Parameters: params})
		}
	}
	r.GenerationConfig = w.GenerationConfig
	return nil
}

// Response is what the scripted model answers to one generate request. The zero value is an
// empty answer that finishes with STOP.
type Response struct {
	// Parts are the candidate's parts: text, thoughts and function calls, in order.
	Parts []Part
	// FinishReason is the candidate's finishReason; empty means "STOP".
	FinishReason string
	// ModelVersion is the response's modelVersion; empty means the requested model.
	ModelVersion string
	// PromptTokens and OutputTokens are the usage reported; zero means an estimate.
	PromptTokens, OutputTokens int
	// ResponseID is the response's responseId; the server numbers them when empty.
	ResponseID string
}

// Reply is a response made of parts.
func Reply(parts ...Part) Response { return Response{Parts: parts} }

// Text is a text part.
func Text(s string) Part { return Part{Text: s} }

// Call is a function call part. args must marshal to a JSON object.
func Call(name string, args map[string]any) Part {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("fakegemini: function call arguments: %v", err))
	}
	return Part{FunctionCall: &FunctionCall{Name: name, Args: b}}
}

// fill completes a scripted response with the request's model, the default finish reason, a
// response id and token estimates.
func (resp *Response) fill(r *Request, n int64) {
	if resp.FinishReason == "" {
		resp.FinishReason = "STOP"
	}
	if resp.ModelVersion == "" {
		resp.ModelVersion = r.Model
	}
	if resp.ResponseID == "" {
		resp.ResponseID = fmt.Sprintf("fakegemini-%d", n)
	}
	if resp.PromptTokens == 0 {
		resp.PromptTokens = max(1, len(r.Body)/4)
	}
	if resp.OutputTokens == 0 {
		n := 0
		for _, p := range resp.Parts {
			n += len(strings.Fields(p.Text))
			if p.FunctionCall != nil {
				n += max(1, len(p.FunctionCall.Args)/4)
			}
		}
		resp.OutputTokens = max(1, n)
	}
}
