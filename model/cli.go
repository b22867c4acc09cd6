package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate/termination"
)

// cliWaitDelay bounds how long a killed CLI may keep its output pipes open (through a child it
// started) before the call returns anyway.
const cliWaitDelay = time.Second

// maxCLIOutput bounds how much of the CLI's stdout and of its stderr is kept.
const maxCLIOutput = 1 << 20

// cliClient runs the Claude Code CLI as a sub-model: `claude -p --model M --output-format
// json`, the prompt on stdin, the result JSON on stdout.
type cliClient struct {
	path, model string
}

// Complete runs the CLI once. The system prompt, when set, goes as --system-prompt;
// req.MaxTokens and req.Effort are not passed (the CLI has no flags for them). The process is
// killed when ctx is done. A result with is_error set is an error: when its text is the CLI's
// "API Error: <status> <body>" the status and body are the API's, and are classified as
// such; otherwise the text itself is the error message. A run that printed no result is an
// error built from its exit code and stderr.
func (c *cliClient) Complete(ctx context.Context, req Request) (Response, error) {
	args := []string{"-p", "--model", c.model, "--output-format", "json"}
	if req.System != "" {
		args = append(args, "--system-prompt", req.System)
	}
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Stdin = strings.NewReader(req.Prompt)
	stdout, stderr := &cappedBuffer{max: maxCLIOutput}, &cappedBuffer{max: maxCLIOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = cliWaitDelay
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		// The kill's own error ("signal: killed") says less than why it was killed.
		return Response{}, fail(ProviderClaudeCLI, c.model, err)
	}

	res, parseErr := parseCLIResult(stdout.Bytes())
	switch {
	case parseErr == nil && res.ok():
		model := c.model
		if len(res.ModelUsage) == 1 {
			for m := range res.ModelUsage {
				model = m
			}
		}
		return Response{Text: res.Result, FinishReason: strings.ToLower(res.StopReason), Provider: ProviderClaudeCLI, Model: model}, nil
	case parseErr == nil:
		return Response{}, fail(ProviderClaudeCLI, c.model, res.apiError())
	case runErr != nil:
		apiErr := termination.ParseErrorBody(ProviderClaudeCLI, 0, strings.TrimSpace(stderr.String()))
		return Response{}, fail(ProviderClaudeCLI, c.model, fmt.Errorf("%s: %w", describeExit(runErr), apiErr))
	default:
		return Response{}, malformed(ProviderClaudeCLI, c.model, parseErr)
	}
}

// describeExit names how the process ended without the wording of the exec error, whose
// "signal: terminated" would read to a prose classifier as a network failure.
func describeExit(err error) string {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		if code := ee.ExitCode(); code >= 0 {
			return "claude exited with code " + strconv.Itoa(code)
		}
		return "claude was killed by a signal"
	}
	return "claude could not be run: " + err.Error()
}

// cliResult is the CLI's result message (the last line of stream-json, the whole of json).
type cliResult struct {
	Type       string                     `json:"type"`
	Subtype    string                     `json:"subtype"`
	IsError    bool                       `json:"is_error"`
	Result     string                     `json:"result"`
	StopReason string                     `json:"stop_reason"`
	Errors     []json.RawMessage          `json:"errors"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

// ok reports whether the run succeeded.
func (r cliResult) ok() bool {
	return !r.IsError && (r.Subtype == "" || r.Subtype == "success")
}

// apiErrorText matches the CLI's rendering of a failed API call: "API Error: 529 {…}".
var apiErrorText = regexp.MustCompile(`(?s)^API Error: ([1-5][0-9][0-9])\b\s*(.*)$`)

// apiError describes a failed run as a *termination.APIError.
func (r cliResult) apiError() *termination.APIError {
	text := strings.TrimSpace(r.Result)
	if m := apiErrorText.FindStringSubmatch(text); m != nil {
		status, _ := strconv.Atoi(m[1])
		return termination.ParseErrorBody("anthropic", status, m[2])
	}
	if text == "" {
		var msgs []string
		for _, raw := range r.Errors {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw)
			}
			msgs = append(msgs, s)
		}
		text = r.Subtype
		if len(msgs) > 0 {
			text += ": " + strings.Join(msgs, "; ")
		}
	}
	return termination.ParseErrorBody(ProviderClaudeCLI, 0, text)
}

// parseCLIResult reads the CLI's stdout: one result object, or (from builds that print the
// whole conversation) an array whose last result object is the answer. stop_reason may be
// null.
func parseCLIResult(out []byte) (cliResult, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return cliResult{}, errors.New("claude printed nothing")
	}
	if out[0] == '[' {
		var msgs []json.RawMessage
		if err := json.Unmarshal(out, &msgs); err != nil {
			return cliResult{}, fmt.Errorf("claude result: %w", err)
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			var r cliResult
			if json.Unmarshal(msgs[i], &r) == nil && r.Type == "result" {
				return r, nil
			}
		}
		return cliResult{}, errors.New("claude result: no result message")
	}
	var r cliResult
	if err := json.Unmarshal(out, &r); err != nil {
		return cliResult{}, fmt.Errorf("claude result: %w", err)
	}
	if r.Type != "result" {
		return cliResult{}, fmt.Errorf("claude result: type %q, want \"result\"", r.Type)
	}
	return r, nil
}

// cappedBuffer keeps the first max bytes written to it and discards the rest, so a runaway
// process cannot exhaust memory. It never fails a write.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *cappedBuffer) String() string { return b.buf.String() }
