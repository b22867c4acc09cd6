package sweagent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

// The formats of agent-runner trajectories.
const (
	// FormatSWEAgent is SWE-agent's <instance>.traj: {trajectory, history, info, …}.
	FormatSWEAgent = "swe-agent"
	// FormatMiniSWEAgent is mini-swe-agent's <instance>.traj.json: {info, messages,
	// trajectory_format, instance_id}.
	FormatMiniSWEAgent = "mini-swe-agent"
)

// Reader reads SWE-agent (.traj) and mini-swe-agent (.traj.json) trajectory files: one
// run of a batch agent on one task, as one Session of one turn. There is no stop hook in
// these runners; the audit asks what stopgate would have said at the run's end.
//
// The Turn: the harness is the format, the session the instance id (instance_id, else the
// file name), the mode autonomous (nobody answers a batch run), and the host never wakes the
// agent. The final message is the last model output (SWE-agent's last step response, else its
// thought; mini-swe-agent's last assistant message), counted as one tool call when it carried
// an action, or as many as its tool calls (mini-swe-agent 2's tool-calling models, whose last
// message announces the submit command its tool call carries: "I'll submit:"). Steps, for the loop guard, are the run's actions with their observations (a
// mini-swe-agent observation with a non-zero <returncode> is a failed step). Todos,
// processes and sub-agents are unknown. When the exit status says the runner ended the run
// (anything but a completion or a cancellation), the Turn carries that reason as its error,
// so the supervisor's error check reports it, as it would a Claude Code turn that ended on an
// API error.
//
// The ending is info.exit_status, mapped by ExitStatusReason.
type Reader struct{}

// Format implements harness.SessionReader. A file is read as FormatSWEAgent or FormatMiniSWEAgent, which the
// Session's Format says; this is the reader's name.
func (Reader) Format() string { return "trajectory" }

// Detect implements harness.SessionReader: a file named *.traj or *.traj.json holding a JSON object.
func (Reader) Detect(path string, head []byte) bool {
	name := strings.ToLower(filepath.Base(path))
	if !strings.HasSuffix(name, ".traj") && !strings.HasSuffix(name, ".traj.json") {
		return false
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// Read implements harness.SessionReader.
func (Reader) Read(path string) ([]*harness.Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	s, err := ParseTrajectory(path, data)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil {
		s.Time = fi.ModTime()
	}
	return []*harness.Session{s}, nil
}

// ErrNotTrajectory reports a JSON object with none of a trajectory's fields.
var ErrNotTrajectory = errors.New("not a trajectory: no info, trajectory, history or messages")

// ParseTrajectory reads the trajectory data, read from path (which names the instance when
// the file does not), into a Session of one turn. It fails on data that is not a JSON object
// with at least one of the trajectory fields, or whose known fields have the wrong JSON types.
// Session.Time is left zero; Read sets it to the file's modification time.
func ParseTrajectory(path string, data []byte) (*harness.Session, error) {
	var raw rawTrajectory
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	if raw.Info == nil && raw.Trajectory == nil && raw.History == nil && raw.Messages == nil {
		return nil, ErrNotTrajectory
	}
	format := FormatSWEAgent
	if strings.HasPrefix(raw.TrajectoryFormat, "mini-swe-agent") || (raw.Messages != nil && raw.Trajectory == nil && raw.History == nil) {
		format = FormatMiniSWEAgent
	}
	id := raw.InstanceID
	if id == "" {
		id = filepath.Base(path)
		for _, ext := range []string{".traj.json", ".traj"} {
			if len(id) > len(ext) && strings.EqualFold(id[len(id)-len(ext):], ext) {
				id = id[:len(id)-len(ext)]
				break
			}
		}
	}
	status := ""
	if raw.Info != nil && raw.Info.ExitStatus != nil {
		status = *raw.Info.ExitStatus
	}
	ending := ExitStatusReason(status)

	t := stopgate.Turn{Harness: format, Session: id, Mode: stall.Autonomous, HostWakes: new(bool)}
	switch {
	case raw.Trajectory != nil:
		t.Steps, t.Message = sweSteps(raw.Trajectory)
	case raw.History != nil:
		t.Steps, t.Message = chatSteps(raw.History, false)
	default:
		t.Steps, t.Message = chatSteps(raw.Messages, true)
	}
	if len(t.Steps) > maxSteps {
		t.Steps = t.Steps[len(t.Steps)-maxSteps:]
	}
	interrupted := ending.Category == termination.Cancelled
	if strings.TrimSpace(status) != "" && ending.Category != termination.Completed && !interrupted {
		t.Err = termination.Attach(fmt.Errorf("%s exit status %q", format, status), ending)
	}
	sum := sha256.Sum256(data)
	return &harness.Session{
		Path: path, Format: format, Harness: format, ID: id,
		Key:   format + "/" + id + "/" + hex.EncodeToString(sum[:12]),
		Turns: []harness.Turn{{Turn: t, Ending: ending, Interrupted: interrupted}},
	}, nil
}

// maxSteps bounds the loop-guard steps of a trajectory's Turn, as hook.MaxSteps does a
// Claude Code one's.
const maxSteps = 100

// rawTrajectory is the part of a trajectory file the audit reads. SWE-agent writes
// trajectory, history and info; mini-swe-agent info, messages, trajectory_format and
// instance_id. Fields absent from the file stay nil.
type rawTrajectory struct {
	Trajectory       []rawStep    `json:"trajectory"`
	History          []rawMessage `json:"history"`
	Messages         []rawMessage `json:"messages"`
	Info             *rawInfo     `json:"info"`
	TrajectoryFormat string       `json:"trajectory_format"`
	InstanceID       string       `json:"instance_id"`
}

// rawStep is one SWE-agent trajectory step.
type rawStep struct {
	Action      string `json:"action"`
	Observation string `json:"observation"`
	Response    string `json:"response"`
	Thought     string `json:"thought"`
}

// rawMessage is one chat message of a SWE-agent history or a mini-swe-agent run. Content is a
// string or a list of {type, text} parts.
type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Action  string          `json:"action"`
	Thought string          `json:"thought"`
	// ToolCalls are the OpenAI-style tool calls of a mini-swe-agent 2 assistant message
	// (its default tool-calling models): each one a call of its bash tool.
	ToolCalls []rawToolCall `json:"tool_calls"`
	// Extra is mini-swe-agent's metadata of a message: on a tool-calling assistant message
	// the actions it parsed, on an observation the command's return code.
	Extra *rawExtra `json:"extra"`
}

// rawToolCall is one tool call of a chat message; Arguments is the JSON text of the
// function's arguments ({"command": "…"} for mini-swe-agent's bash tool).
type rawToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// rawExtra is the part of a mini-swe-agent message's extra field the audit reads.
type rawExtra struct {
	Actions []struct {
		Command string `json:"command"`
	} `json:"actions"`
	ReturnCode *int `json:"returncode"`
}

// commands returns the bash commands of a tool-calling message: its parsed actions, else
// the command argument of each tool call (the arguments as written when they are not a
// JSON object with a command).
func (m rawMessage) commands() []string {
	var out []string
	if m.Extra != nil {
		for _, a := range m.Extra.Actions {
			if strings.TrimSpace(a.Command) != "" {
				out = append(out, a.Command)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, tc := range m.ToolCalls {
		var args struct {
			Command string `json:"command"`
		}
		cmd := tc.Function.Arguments
		if json.Unmarshal([]byte(cmd), &args) == nil && args.Command != "" {
			cmd = args.Command
		}
		if strings.TrimSpace(cmd) == "" {
			cmd = tc.Function.Name
		}
		out = append(out, cmd)
	}
	return out
}

// rawInfo is a trajectory's info object.
type rawInfo struct {
	ExitStatus *string `json:"exit_status"`
}

// text returns the message's text.
func (m rawMessage) text() string {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || string(c) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// sweSteps reads SWE-agent trajectory steps into loop-guard steps and the final message.
func sweSteps(traj []rawStep) ([]loopguard.Step, *stopgate.Message) {
	var steps []loopguard.Step
	for _, st := range traj {
		steps = append(steps, actionStep(st.Action, st.Thought, st.Observation, false))
	}
	if len(traj) == 0 {
		return steps, nil
	}
	last := traj[len(traj)-1]
	m := &stopgate.Message{Text: last.Response}
	if strings.TrimSpace(m.Text) == "" {
		m.Text = last.Thought
	}
	if strings.TrimSpace(last.Action) != "" {
		m.ToolCalls = 1
	}
	return steps, m
}

// bashBlock is mini-swe-agent's text-based action: the first ```bash block of an assistant
// message (mini-swe-agent 1), or ```mswea_bash_command (mini-swe-agent 2's text-based models).
var bashBlock = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

// returnCode reads mini-swe-agent's observation template.
var returnCode = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)

// chatSteps reads chat messages (a SWE-agent history, or mini-swe-agent's messages when mini
// is set) into loop-guard steps and the final message. An assistant message's action is its
// action field (SWE-agent), its tool calls (mini-swe-agent 2's tool-calling models: one step
// and one tool call each, the observations the role "tool" messages that follow) or its
// first bash block (mini-swe-agent's text-based models); the user message that follows is the
// observation.
func chatSteps(msgs []rawMessage, mini bool) ([]loopguard.Step, *stopgate.Message) {
	var steps []loopguard.Step
	var final *stopgate.Message
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		text := m.text()
		if cmds := m.commands(); mini && len(cmds) > 0 {
			// The observations: the tool messages after this one, in call order.
			var obs []rawMessage
			for _, o := range msgs[i+1:] {
				if o.Role != "tool" {
					break
				}
				obs = append(obs, o)
			}
			for k, cmd := range cmds {
				thought := ""
				if k == 0 {
					thought = strings.TrimSpace(text)
				}
				st := actionStep(cmd, thought, "", false)
				if k < len(obs) {
					st = observed(st, obs[k])
				}
				steps = append(steps, st)
			}
			final = &stopgate.Message{Text: text, ToolCalls: len(cmds)}
			continue
		}
		action, thought := m.Action, m.Thought
		if mini {
			if sm := bashBlock.FindStringSubmatchIndex(text); sm != nil {
				action, thought = text[sm[2]:sm[3]], strings.TrimSpace(text[:sm[0]])
			} else {
				thought = text
			}
		} else if thought == "" {
			thought = text
		}
		obs := ""
		if i+1 < len(msgs) && msgs[i+1].Role != "assistant" && msgs[i+1].Role != "system" {
			obs = msgs[i+1].text()
		}
		steps = append(steps, actionStep(action, thought, obs, mini))
		final = &stopgate.Message{Text: text}
		if strings.TrimSpace(action) != "" {
			final.ToolCalls = 1
		}
	}
	return steps, final
}

// observed gives a step its observation, a mini-swe-agent tool message: a non-zero return
// code (extra.returncode, else the <returncode> of the text) makes it the step's error.
func observed(st loopguard.Step, o rawMessage) loopguard.Step {
	obs := o.text()
	st.Result = obs
	code := 0
	if o.Extra != nil && o.Extra.ReturnCode != nil {
		code = *o.Extra.ReturnCode
	} else if m := returnCode.FindStringSubmatch(obs); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	if code != 0 {
		st.Result, st.Error = "", obs
	}
	return st
}

// actionStep makes the loop-guard step of one action and its observation. The tool is the
// command's first word (SWE-agent's commands: open, edit, submit, python …), the arguments
// the whole action, so that the same action twice is the same call. With codes set, an
// observation that reports a non-zero <returncode> is the step's error.
func actionStep(action, thought, obs string, codes bool) loopguard.Step {
	action = strings.TrimSpace(action)
	if action == "" {
		return loopguard.Step{Text: thought}
	}
	st := loopguard.Step{Tool: strings.Fields(action)[0], Args: action, Text: thought, Result: obs}
	if codes {
		if m := returnCode.FindStringSubmatch(obs); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
				st.Result, st.Error = "", obs
			}
		}
	}
	return st
}

// exitMapping is the category an exit status maps to, and which feeder's kind of cause it is.
type exitMapping struct {
	category termination.Category
	source   termination.Source
}

// exitStatuses maps the exit statuses of SWE-agent (sweagent/agent/agents.py, and the 0.x
// environment) and mini-swe-agent (its exception class names), lower-cased.
var exitStatuses = map[string]exitMapping{
	// The agent ended the run itself.
	"submitted":    {termination.Completed, termination.SourceControl},
	"exit_command": {termination.Completed, termination.SourceControl}, // the model ran `exit`
	"exit_forfeit": {termination.Completed, termination.SourceControl}, // the model gave up (EnIGMA's exit_forfeit)
	// The runner's own limits.
	"exit_cost":                 {termination.RecursionLimit, termination.SourceControl},
	"limitsexceeded":            {termination.RecursionLimit, termination.SourceControl},
	"exit_total_execution_time": {termination.Timeout, termination.SourceControl},
	"timeexceeded":              {termination.Timeout, termination.SourceControl},
	"exit_format":               {termination.ToolErrorBudget, termination.SourceControl},
	"formaterror":               {termination.ToolErrorBudget, termination.SourceControl},
	// Errors.
	"exit_context":           {termination.ContextOverflow, termination.SourceException},
	"exit_api":               {termination.ProviderError, termination.SourceException},
	"exit_command_timeout":   {termination.Timeout, termination.SourceException},
	"exit_environment_error": {termination.ToolError, termination.SourceException},
	"early_exit":             {termination.ToolError, termination.SourceException},
	"exit_error":             {termination.Unknown, termination.SourceException},
	// The user stopped it.
	"userinterruption":  {termination.Cancelled, termination.SourceControl},
	"keyboardinterrupt": {termination.Cancelled, termination.SourceControl},
}

// autosubmitted matches the exit status SWE-agent writes when it extracted and submitted the
// patch after a run ended on an error: "submitted (exit_cost)".
var autosubmitted = regexp.MustCompile(`(?i)^(?:auto)?submit(?:ted)?\s*\((.+)\)$`)

// ExitStatusReason maps a SWE-agent or mini-swe-agent exit status (info.exit_status) to the
// reason the run ended. Detail is the status as written. Matching ignores case.
//
//	submitted, Submitted              completed        the agent submitted
//	exit_command                      completed        the agent ran `exit`
//	exit_forfeit                      completed        the agent gave up of its own accord
//	exit_cost, LimitsExceeded         recursion_limit  the runner's cost or step budget: the
//	                                                   taxonomy's run-limit member
//	exit_total_execution_time,        timeout          the runner's wall-clock budget
//	TimeExceeded
//	exit_format, FormatError          tool_error_budget the budget of requeries after malformed,
//	                                                   blocked or syntax-error actions ran out
//	exit_context                      context_overflow the context window was exceeded
//	exit_api                          provider_error   the model API's retries were exhausted
//	exit_command_timeout              timeout          several commands in a row timed out
//	exit_environment_error            tool_error       the execution environment failed
//	early_exit                        tool_error       (SWE-agent 0.x) a command failed to run
//	                                                   or could not be interrupted
//	exit_error                        unknown          an uncaught error SWE-agent does not name
//	UserInterruption,                 cancelled        the user stopped the run
//	KeyboardInterrupt
//	submitted (X), autosubmit (X)     as X             the run ended on X and SWE-agent then
//	                                                   submitted what the environment held
//	any other (mini-swe-agent writes  what termination.Classify makes of an error of that
//	an uncaught exception's class)    class name (RateLimitError: rate_limited), else unknown
//	"" (absent or null)               unknown          the run did not record how it ended
//
// The site is runner.completed for a completion, agent.cancelled for a cancellation and
// runner.turn-error otherwise.
func ExitStatusReason(status string) termination.Reason {
	raw := strings.TrimSpace(status)
	name := raw
	if m := autosubmitted.FindStringSubmatch(raw); m != nil {
		name = strings.TrimSpace(m[1])
	}
	c := termination.Classification{Detail: raw}
	source := termination.SourceException
	if mp, ok := exitStatuses[strings.ToLower(name)]; ok {
		c.Category, source = mp.category, mp.source
	} else if name != "" {
		cl := termination.Classify(&termination.APIError{Name: name})
		c.Category, c.Provider = cl.Category, cl.Provider
	} else {
		c.Category = termination.Unknown
	}
	site := termination.SiteTurnError
	switch c.Category {
	case termination.Completed:
		site = termination.SiteRunnerCompleted
	case termination.Cancelled:
		site = termination.SiteCancelled
	}
	return termination.New(site, source, c)
}
