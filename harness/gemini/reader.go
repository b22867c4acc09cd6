package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/harness/internal/readers"
	"github.com/stopgate/stopgate/termination"
)

// Format is the Format of Gemini CLI chat sessions.
const Format = "gemini-cli"

// Reader reads Gemini CLI chat sessions: the JSONL session files
// (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl) and the legacy single-object .json
// ones, one session a file. A sub-agent's chat (kind "subagent",
// chats/<parent session id>/<id>.jsonl) is audited as agent <id> of the session its folder
// names.
//
// The turns are Turns', each Turn SessionTurn's. Gemini CLI records a
// hook's continuation prompt as an ordinary user message, so each one starts a turn, the stop
// it answered is decided as its turn's, and no nudges are reported: the file does not say which
// prompts a hook sent.
//
// How a turn ended is read off the records Gemini CLI 0.61.0 writes after the turn's last
// model message (interactive sessions write them; `gemini -p` writes none): the last one that
// says how the turn ended.
//
//	info "User cancelled the request."        cancelled         the user pressed Esc
//	info "⚠️  Response truncated due to token  the finish reason the notice stands for (MAX_TOKENS,
//	  limits.", "…Response stopped due to …"  SAFETY, …), as termination.ClassifyStop reads it:
//	                                          output_truncated, content_refusal, …
//	info "The session has reached the maximum recursion_limit   model.maxSessionTurns: the run-limit member
//	  number of turns: …"
//	info "A potential loop was detected. …"   tool_loop_guard   Gemini CLI's loop detector halted the run
//	info "Sending this message (…) might      context_overflow  the request was not sent
//	  exceed the context window limit …"
//	error "The model returned an empty        empty_response
//	  response …", "… reasoning thoughts but
//	  no final response text …"
//	error "Model response was truncated       output_truncated
//	  because it exceeded the token limit …"
//	error "The model response was blocked     content_refusal
//	  due to safety settings", "… recitation/
//	  copyright filters", "… other policy
//	  settings"
//	any other error                           what termination.Classify makes of its text
//	                                          ("[API Error: …]" with a status or a Google body)
//	none                                      completed
//
// The detail is Gemini CLI's own name for what happened (the finish reason, NO_RESPONSE_TEXT,
// …). A cancelled turn is not decided: no hook runs then. A finish-reason notice sets the final
// message's FinishReason, and the other endings of the table become the Turn's Err, so the
// supervisor decides on the same facts the ending reports.
type Reader struct{}

// Format implements harness.SessionReader.
func (Reader) Format() string { return Format }

// Detect implements harness.SessionReader: the file's first line is a session's metadata record (an object with
// sessionId and projectHash and no type), or the file is a .json file whose head names both
// fields (a legacy session, pretty-printed).
func (Reader) Detect(path string, head []byte) bool {
	line, complete, ok := readers.FirstLine(head)
	if !ok {
		return false
	}
	if complete {
		var m struct {
			SessionID   json.RawMessage `json:"sessionId"`
			ProjectHash json.RawMessage `json:"projectHash"`
			Type        json.RawMessage `json:"type"`
		}
		if json.Unmarshal(line, &m) == nil && m.SessionID != nil && m.ProjectHash != nil && m.Type == nil {
			return true
		}
	}
	return strings.EqualFold(filepath.Ext(path), ".json") &&
		bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"projectHash"`))
}

// Read implements harness.SessionReader.
func (Reader) Read(path string) ([]*harness.Session, error) {
	gs, err := chat.ReadGeminiFile(path, nil)
	if err != nil {
		return nil, fmt.Errorf("gemini-cli: %w", err)
	}
	turns := Turns(gs)
	if len(turns) == 0 {
		return nil, fmt.Errorf("%w: no turns", harness.ErrSkip)
	}
	s := &harness.Session{
		Path: path, Format: Format, Harness: Name, ID: gs.ID,
		Time: gs.LastUpdated, Malformed: gs.MalformedCount, Turns: make([]harness.Turn, len(turns)),
	}
	if gs.Kind == "subagent" {
		s.ID, s.Agent = filepath.Base(filepath.Dir(path)), gs.ID
	}
	for i, run := range turns {
		t := SessionTurn(gs, i)
		t.Session, t.Agent = s.ID, s.Agent
		ending, interrupted := geminiEnding(run, &t)
		tr := harness.Turn{Turn: t, Ending: ending, Interrupted: interrupted}
		if run[0].Prompt() {
			tr.Trigger = string(chat.KindPrompt)
		}
		s.Turns[i] = tr
		if s.Time.IsZero() || t.Now.After(s.Time) {
			s.Time = t.Now
		}
	}
	if s.Time.IsZero() {
		s.Time = readers.ModTime(path)
	}
	return []*harness.Session{s}, nil
}

// geminiNotice is what one of Gemini CLI's records says of how a turn ended.
type geminiNotice struct {
	typ      string // the record's type: chat.GeminiInfo or chat.GeminiError
	fragment string // a fragment of its text
	category termination.Category
	detail   string // Gemini CLI's name for it; for a finish-reason notice, the finish reason
}

// geminiNotices are the records of Gemini CLI 0.61.0 that say how a turn ended, other than its
// API errors. The finish-reason notices are classified by their finish reason.
var geminiNotices = []geminiNotice{
	{chat.GeminiInfo, "User cancelled the request.", termination.Cancelled, "user_cancelled"},
	{chat.GeminiInfo, "Response truncated due to token limits.", "", "MAX_TOKENS"},
	{chat.GeminiInfo, "Response stopped due to safety reasons.", "", "SAFETY"},
	{chat.GeminiInfo, "Response stopped due to recitation policy.", "", "RECITATION"},
	{chat.GeminiInfo, "Response stopped due to unsupported language.", "", "LANGUAGE"},
	{chat.GeminiInfo, "Response stopped due to forbidden terms.", "", "BLOCKLIST"},
	{chat.GeminiInfo, "Response stopped due to prohibited content.", "", "PROHIBITED_CONTENT"},
	{chat.GeminiInfo, "Response stopped due to sensitive personally identifiable information.", "", "SPII"},
	{chat.GeminiInfo, "Response stopped for other reasons.", "", "OTHER"},
	{chat.GeminiInfo, "Response stopped due to malformed function call.", "", "MALFORMED_FUNCTION_CALL"},
	{chat.GeminiInfo, "Response stopped due to image safety violations.", "", "IMAGE_SAFETY"},
	{chat.GeminiInfo, "Response stopped due to unexpected tool call.", "", "UNEXPECTED_TOOL_CALL"},
	{chat.GeminiInfo, "Response stopped due to prohibited image content.", "", "IMAGE_PROHIBITED_CONTENT"},
	{chat.GeminiInfo, "Response stopped because no image was generated.", "", "NO_IMAGE"},
	{chat.GeminiInfo, "The session has reached the maximum number of turns", termination.RecursionLimit, "max_session_turns"},
	{chat.GeminiInfo, "A potential loop was detected.", termination.ToolLoopGuard, "loop_detected"},
	{chat.GeminiInfo, "might exceed the context window limit", termination.ContextOverflow, "context_window_will_overflow"},
	{chat.GeminiError, "The model returned an empty response with no text or thoughts.", termination.EmptyResponse, "NO_RESPONSE_TEXT"},
	{chat.GeminiError, "The model returned reasoning thoughts but no final response text.", termination.EmptyResponse, "THINKING_ONLY_RESPONSE"},
	{chat.GeminiError, "Model response was truncated because it exceeded the token limit.", termination.OutputTruncated, "MAX_TOKENS_EXCEEDED"},
	{chat.GeminiError, "The model response was blocked due to safety settings.", termination.ContentRefusal, "SAFETY_BLOCKED"},
	{chat.GeminiError, "The model response was blocked due to recitation/copyright filters.", termination.ContentRefusal, "RECITATION_BLOCKED"},
	{chat.GeminiError, "The model response was blocked due to other policy settings.", termination.ContentRefusal, "OTHER_BLOCKED"},
}

// geminiEnding says how the turn made of the messages run ended, from the records after its
// last model message, as GeminiCLI documents, and brings t into line with it: a finish reason
// goes on its final message (for the supervisor's stop-metadata check), the other endings the
// table names become its Err (for the error check).
func geminiEnding(run []*chat.GeminiMessage, t *stopgate.Turn) (r termination.Reason, interrupted bool) {
	site := termination.SiteHookGeminiCLI
	after := 0
	for k, m := range run {
		if m.Type == chat.GeminiModel {
			after = k + 1
		}
	}
	var said *geminiNotice
	var errText string
	for _, m := range run[after:] {
		if m.Type != chat.GeminiInfo && m.Type != chat.GeminiError {
			continue
		}
		text := strings.TrimSpace(m.Text)
		if n := findNotice(m.Type, text); n != nil {
			said, errText = n, text
		} else if m.Type == chat.GeminiError && text != "" {
			said, errText = nil, text // an API error: the Turn carries it (SessionTurn)
		}
	}
	switch {
	case said == nil:
		return harness.TurnEnding(termination.SiteHookGeminiCLI, *t, false), false
	case said.category == termination.Cancelled:
		r = termination.Control(site, termination.Cancelled)
		r.Detail = said.detail
		return r, true
	case said.category == "":
		c, _ := termination.ClassifyStop(ProviderGoogle, said.detail)
		r = termination.New(site, termination.SourceMetadata, c)
		if t.Message != nil {
			t.Message.FinishReason = said.detail
		}
		return r, false
	default:
		source := termination.SourceControl
		if said.typ == chat.GeminiError {
			source = termination.SourceException
		}
		r = termination.New(site, source, termination.Classification{Category: said.category, Provider: ProviderGoogle, Detail: said.detail})
	}
	t.Err = termination.Attach(errors.New(errText), r)
	return r, false
}

// findNotice returns the notice a record of type typ with text stands for; nil for none.
func findNotice(typ, text string) *geminiNotice {
	for k := range geminiNotices {
		if n := &geminiNotices[k]; n.typ == typ && strings.Contains(text, n.fragment) {
			return n
		}
	}
	return nil
}
