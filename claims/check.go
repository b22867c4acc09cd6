package claims

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stopgate/stopgate/loopguard"
)

// Config configures [Check]. The zero Config blocks only on contradicting evidence.
type Config struct {
	// RequireEvidence also reports a claim that no matching run after the last edit supports
	// as Unverified-and-blocking. Off by default: many honest runs verify nothing.
	RequireEvidence bool
}

// Outcome is what the evidence says of a final message's claims.
type Outcome string

// The outcomes of [Check].
const (
	// NoClaim: the message claims no verification.
	NoClaim Outcome = "no_claim"
	// Supported: every unhedged claim has a matching run after the last edit that passed.
	Supported Outcome = "supported"
	// Unverified: some claim has no matching run after the last edit.
	Unverified Outcome = "unverified"
	// Contradicted: the last matching run after the last edit failed, or its summary's
	// numbers disagree with the claim.
	Contradicted Outcome = "contradicted"
	// Hedged: every claim is qualified by its writer.
	Hedged Outcome = "hedged"
)

// Verdict is the result of [Check].
type Verdict struct {
	// Outcome is the verdict on the message's claims.
	Outcome Outcome `json:"outcome"`
	// Block says whether the agent should be asked to continue: a contradiction, or an
	// unverified claim when Config.RequireEvidence is set.
	Block bool `json:"block"`
	// Claim is the claim the outcome is about; Run the evidence, when there is some.
	Claim *Claim `json:"claim,omitempty"`
	Run   *Run   `json:"run,omitempty"`
	// Why says in one line why.
	Why string `json:"why"`
	// Message is the continuation for the agent when Block is set.
	Message string `json:"message,omitempty"`
}

// Check compares the verification claims of text, a final message, with the runs in steps, the
// run's tool steps oldest first.
func Check(text string, steps []loopguard.Step, cfg Config) Verdict {
	cs := Find(text)
	if len(cs) == 0 {
		return Verdict{Outcome: NoClaim, Why: "the final message claims no verification"}
	}
	runs := Runs(steps)
	edit := lastEdit(steps)
	var unverified *Claim
	supported := 0
	for i := range cs {
		c := &cs[i]
		if c.Hedged {
			continue
		}
		after := evidenceFor(c.Kind, runs, edit)
		if len(after) == 0 {
			if unverified == nil {
				unverified = c
			}
			continue
		}
		lastRun := after[len(after)-1]
		if lastRun.Failed && !c.Subset {
			v := Verdict{Outcome: Contradicted, Block: true, Claim: c, Run: &lastRun,
				Why: fmt.Sprintf("%s claim contradicted: the last %s run after the last edit failed", c.Kind, lastRun.Kind)}
			v.Message = contradictionMessage(*c, lastRun, "")
			return v
		}
		if r, ok := countsDisagree(*c, after, runs); ok && !c.Subset {
			v := Verdict{Outcome: Contradicted, Block: true, Claim: c, Run: &r,
				Why: "the claimed numbers match no run's summary after the last edit"}
			v.Message = contradictionMessage(*c, r, "the numbers do not match")
			return v
		}
		supported++
	}
	switch {
	case unverified != nil:
		v := Verdict{Outcome: Unverified, Claim: unverified,
			Why: fmt.Sprintf("no %s run after the last edit supports the claim", unverified.Kind)}
		if cfg.RequireEvidence {
			v.Block = true
			v.Message = fmt.Sprintf("Your final message says %q, but no %s command ran after your last edit. Run it and report what it prints, or say plainly that it was not run.", unverified.Sentence, unverified.Kind)
		}
		return v
	case supported == 0:
		return Verdict{Outcome: Hedged, Claim: &cs[0], Why: "every claim is qualified by its writer"}
	}
	return Verdict{Outcome: Supported, Claim: &cs[0], Why: "the last matching run after the last edit passed"}
}

// evidenceFor returns the runs after step edit that are evidence for a claim of kind c: the
// runs of that kind, or, when there are none, the runs of a compatible kind. A build claim is
// judged by the last build, not by a later type-check that reports what the build tolerated.
func evidenceFor(c Kind, runs []Run, edit int) []Run {
	var own, related []Run
	for _, r := range runs {
		switch {
		case r.Step <= edit:
		case r.Kind == c:
			own = append(own, r)
		case compatible(c, r.Kind):
			related = append(related, r)
		}
	}
	if len(own) > 0 {
		return own
	}
	return related
}

// compatible says whether a run of kind r is evidence for a claim of kind c.
func compatible(c, r Kind) bool {
	// A type-checker compiles: a build claim reads its runs too.
	return c == r || c == Build && r == TypeCheck
}

// countsDisagree reports a claim that states more passing tests than the runs printed
// ("86/86 pass" when the runner printed 80 passed), returning the last run after the last edit
// that printed counts. What the runs printed is the sum, over the distinct commands of the
// claim's kind anywhere in the steps, of each command's latest count: a final message often
// adds up suites ("141 Elixir + 16 Vitest = 157 tests"). A claim of fewer (a subset: "the 31
// session tests pass" of a 373-test suite) is not contradicted, nor is anything when no run
// after the last edit printed counts.
func countsDisagree(c Claim, after, all []Run) (Run, bool) {
	claimed := max(c.Passed, c.Total)
	if claimed == 0 {
		return Run{}, false
	}
	var last Run
	seen := false
	for _, r := range after {
		if r.Passed >= 0 {
			last, seen = r, true
		}
	}
	if !seen {
		return Run{}, false
	}
	latest := map[string]int{}
	for _, r := range all {
		if r.Passed >= 0 && compatible(c.Kind, r.Kind) {
			latest[strings.Join(strings.Fields(r.Command), " ")] = r.Passed
		}
	}
	sum := 0
	for _, n := range latest {
		sum += n
	}
	if claimed <= sum {
		return Run{}, false
	}
	return last, true
}

func contradictionMessage(c Claim, r Run, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your final message says %q, but ", c.Sentence)
	if what != "" {
		fmt.Fprintf(&b, "%s: ", what)
	}
	fmt.Fprintf(&b, "the last %s run after your last edit, `%s`,", r.Kind, oneLine(r.Command))
	switch {
	case r.Exit != nil && *r.Exit != 0:
		fmt.Fprintf(&b, " exited with status %d", *r.Exit)
	case r.Failed:
		b.WriteString(" failed")
	default:
		b.WriteString(" printed")
	}
	if r.Summary != "" {
		fmt.Fprintf(&b, " (%q)", oneLine(r.Summary))
	}
	b.WriteString(". Fix the failure and run it again, or correct the claim in your final message.")
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// editTools are tools that change files.
var editTools = map[string]bool{
	"edit": true, "write": true, "multiedit": true, "notebookedit": true, "apply_patch": true,
	"write_file": true, "replace": true, "edit_file": true, "create_file": true,
	"str_replace_editor": true, "str_replace_based_edit_tool": true, "patch": true,
	"insert": true, "str_replace": true, "create": true, "delete_file": true,
}

// shellEdit recognises shell commands that change files: in-place edits, writes through a
// redirect or tee from cat/echo/printf, patches, and git commands that rewrite the work tree.
// It is deliberately narrow: a commit message in a heredoc or an arrow in a string is not an
// edit.
var shellEdit = regexp.MustCompile(`\bsed\s+(-[a-zA-Z]*\s+)*-i|\bperl\s+-[a-zA-Z]*i|\b(cat|echo|printf)\b[^|;&]*[^2&\-=]>>?\s*[^&\s]|\|\s*tee\b|\bgit\s+(apply|am|checkout|restore|reset|revert|cherry-pick|merge|rebase|pull|stash\s+(pop|apply))\b|(^|[;&|]\s*)patch\b|\bgofmt\s+-w|\bprettier\b.*--write|\b(black|isort)\s|\bruff\s+format|\bcargo\s+fmt|\bmix\s+format\s*$|--fix\b`)

// logPath is a path a run's tools write their own logs to (logs/, log/, *.log), not code.
var logPath = regexp.MustCompile(`^["']?(?:\S*/)?logs?(?:/\S*)?["']?$|\.log["']?$`)

// gitRestore matches a git command that puts files back as committed.
var gitRestore = regexp.MustCompile(`^git\s+(?:restore|checkout)\b`)

// logRestoreOnly reports a command whose only file changes are git restores of log files
// ("git restore logs/ && git status"): putting a hook's or a tool's logs back leaves the code
// the runs tested as it was, so it is no edit.
func logRestoreOnly(cmd string) bool {
	found := false
	for _, part := range splitRe.Split(cmd, -1) {
		part = strings.TrimSpace(part)
		if !shellEdit.MatchString(part) {
			continue
		}
		if !gitRestore.MatchString(part) {
			return false
		}
		paths := 0
		for _, f := range strings.Fields(part)[2:] {
			if strings.HasPrefix(f, "-") {
				continue
			}
			if !logPath.MatchString(f) {
				return false
			}
			paths++
		}
		if paths == 0 {
			return false
		}
		found = true
	}
	return found
}

// lastEdit returns the index of the last step that changed a file, or -1.
func lastEdit(steps []loopguard.Step) int {
	last := -1
	for i, st := range steps {
		if editTools[strings.ToLower(st.Tool)] {
			last = i
			continue
		}
		// A verification command is never an edit, even one that formats first or redirects
		// its output to a file: what it verifies is the state it leaves.
		if cmd := command(st); cmd != "" {
			if _, verifies := classify(cmd); !verifies && shellEdit.MatchString(cmd) && !logRestoreOnly(cmd) {
				last = i
			}
		}
	}
	return last
}
