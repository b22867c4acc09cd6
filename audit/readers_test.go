package audit

import (
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/harness/codex"
	"github.com/stopgate/stopgate/harness/gemini"
	"github.com/stopgate/stopgate/harness/sweagent"
)

// DefaultReaders returns the readers of every harness, in the order cmd/stopgate's registry
// lists them: the tests audit with all of them, as `stopgate audit` does.
func DefaultReaders() []Reader {
	return []Reader{sweagent.Reader{}, claudecode.Reader{}, codex.Reader{}, gemini.Reader{}}
}
