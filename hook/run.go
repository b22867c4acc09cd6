package hook

import (
	"context"
	"io"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
)

// Run runs one stop-hook invocation of the harness whose live half is h: h.Stop decodes the
// payload and builds the Turn, the driver decides within the options' time budget with the
// per-session budgets kept in the state file Stop.State names, and h.Answer encodes the answer.
// It fails open as ClaudeCode does (exit 0, empty stdout, one "stopgate:" line on stderr) and
// returns the process's exit status, which is always 0.
func Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, h harness.Hook, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	var stop *harness.Stop
	return invokeHook(ctx, stdin, stdout, stderr, o, func(ctx context.Context, stdin io.Reader) outcome {
		s, err := h.Stop(ctx, stdin, o.now())
		if err != nil {
			return outcome{err: err}
		}
		stop = s
		out := outcome{notes: s.Notes, event: s.Event}
		if s.Skip {
			return out
		}
		return o.decideWithState(ctx, s.Turn, stateKey{s.State.Session, s.State.Agent}, s.Active, s.Chain, out)
	}, func(d stopgate.Decision, _ string) ([]byte, string) {
		return h.Answer(d, stop)
	})
}
