package claims

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a claim or a run verifies.
type Kind string

// The kinds of verification a claim can assert and a run can show.
const (
	Tests     Kind = "tests"
	Build     Kind = "build"
	Lint      Kind = "lint"
	TypeCheck Kind = "typecheck"
)

// Claim is one sentence of a final message that asserts a verification succeeded.
type Claim struct {
	// Kind is what it claims passed.
	Kind Kind `json:"kind"`
	// Sentence is the sentence, as written (markdown emphasis removed).
	Sentence string `json:"sentence"`
	// Passed is the number of passing tests it states (0: none stated); Total is the total it
	// states ("86/86", "all 86 tests"), 0 when none.
	Passed int `json:"passed,omitempty"`
	Total  int `json:"total,omitempty"`
	// Hedged marks a claim qualified by the writer ("except the flaky X", "the failures are
	// pre-existing", "I could not run them"); a hedged claim is never contradicted.
	Hedged bool `json:"hedged,omitempty"`
	// Subset marks a claim about some of the tests ("the new parser tests pass", "core
	// property tests pass"): a failing run of a wider set does not contradict it.
	Subset bool `json:"subset,omitempty"`
}

// claimPatterns recognise a sentence that asserts a kind of verification passed. They are
// matched against a lower-cased sentence with markdown removed.
var claimPatterns = []struct {
	kind Kind
	re   *regexp.Regexp
}{
	{Tests, regexp.MustCompile(`\b(tests?|specs?|test suites?|test cases?|suite)\b[^.;:]{0,40}?\b(pass|passes|passed|passing|green|succeed|succeeds|succeeded)\b`)},
	{Tests, regexp.MustCompile(`\b(pass|passes|passed|passing)\b[^.;:]{0,20}?\ball\b[^.;:]{0,20}?\b(tests?|specs?)\b`)},
	{Tests, regexp.MustCompile(`\b\d+\s*/\s*\d+\s+(tests?|specs?|cases?)?\s*(pass|passes|passed|passing|green|ok)\b`)},
	{Tests, regexp.MustCompile(`\b\d+\s+(tests?|specs?|examples?|cases?)\s*,?\s*(pass|passes|passed|passing|0 failures|zero failures)\b`)},
	{Tests, regexp.MustCompile(`\b(no|zero|0)\s+(test\s+)?(failures|failing tests|failed tests)\b`)},
	{Build, regexp.MustCompile(`\b(build|builds|built|rebuild|rebuilds|rebuilt|compile|compiles|compilation|compiled)\b[^.;:]{0,30}?\b(succeeds|succeeded|successful|successfully|passes|passed|cleanly|clean|verified|without (any )?(errors|warnings))\b`)},
	{Lint, regexp.MustCompile(`\b(lint|linter|linting|lints|eslint|clippy|rubocop|ruff|golangci-lint|go vet|staticcheck|flake8|pylint|credo)\b[^.;:]{0,30}?\b(clean|passes|passed|no (errors|warnings|issues|problems|findings))\b`)},
	{TypeCheck, regexp.MustCompile(`\b(type[- ]?checks?|type[- ]?checking|typecheck|tsc|mypy|pyright|types)\b[^.;:]{0,30}?\b(clean|passes|passed|succeeds|no errors)\b`)},
	{TypeCheck, regexp.MustCompile(`\bno (type|typescript|tsc|mypy) errors\b`)},
	// A status line: a label naming the verification, a colon, and its outcome ("Build
	// status: passed", "Tests: passing", "Type check: 0 errors").
	{Tests, statusLine(`tests?|test suite|unit tests|test status|tests status`)},
	{Build, statusLine(`build|build status|production build|compilation`)},
	{Lint, statusLine(`lint|linting|lint status`)},
	{TypeCheck, statusLine(`type[- ]?check|typecheck|type checking|typescript|types`)},
}

// statusLine builds the pattern of a status line whose label is one of labels.
func statusLine(labels string) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + labels + `)\s*:\s*(?:passed|passing|passes|pass|success|successful|succeeded|succeeds|green|clean|ok|0 errors|no errors)\b`)
}

// notAssertion marks a sentence that mentions verification without asserting it happened: a
// plan, a condition, an instruction, a question or a negation.
var notAssertion = regexp.MustCompile(`\?|\b(if|once|when|whether|unless|until|should|would|will|could|might|may|can|must|need|needs|ensure|ensures|make sure|to verify|verify|let me|let's|i'll|we'll|going to|try|trying|want|expect|hopefully|please|not|never|cannot|can't|couldn't|didn't|don't|doesn't|isn't|aren't|wasn't|weren't|won't|wouldn't|shouldn't|haven't|hasn't|without running|to pass|to be passing|run the|rerun|re-run)\b`)

// subset marks a test claim about some of the tests, not the suite.
var subset = regexp.MustCompile(`\b(core|new|newly added|added|relevant|affected|targeted|specific|individual|related|modified|updated|changed|my|these|those|this|that|selected|focused|key|critical|basic|single|one)\b(\s+[\w-]+){0,3}\s+(tests?|specs?|test cases?)\b`)

// hedge marks a claim the writer qualified: failures acknowledged, excused, or not run.
var hedge = regexp.MustCompile(`\b(except|apart from|other than|besides|aside from|excluding|pre-?existing|unrelated|flaky|flakey|known (failures?|issues?)|skipped|xfail|partially|most|mostly|majority|remaining|still (fail|fails|failing|broken)|(\d+|one|two|three|four|five|a few|several|some) (of the )?(tests? |specs? )?(fail|fails|failed|failing|failures?|errors?)|fail(s|ed|ing)? (due to|because)|failures? (are|is|were|was) (pre-?existing|unrelated|expected|known|flaky)|no new (errors?|failures?|issues?|problems?)|same (\d+ )?(pre-?existing )?(errors?|failures?))\b`)

// zeroFailures is a failure mention that is itself the claim ("0 failed", "no failures").
var zeroFailures = regexp.MustCompile(`\b(0|no|zero)\s+(test\s+)?(failures?|failed|failing|errors?)\b`)

// warningsAside is a qualifier about warnings ("only pre-existing warnings", "with minor
// warnings"): warnings are not failures, so it neither hedges nor negates the claim.
var warningsAside = regexp.MustCompile(`\b(?:only|with|just|some|a few|(?:\d+|one|two|three))?\s*(?:pre-?existing|existing|known|unrelated|minor|harmless|cosmetic)\s+(?:\w+\s+)?warnings?\b`)

var (
	ratio = regexp.MustCompile(`\b(\d+)\s*/\s*(\d+)\b`)
	allN  = regexp.MustCompile(`\ball\s+(\d+)\b`)
	// "447 total tests (284 unit + 163 API) all pass", "125 tests, all passing": a count of
	// tests, then "all pass" for the lot.
	nAll     = regexp.MustCompile(`\b(\d+)\s+(?:total\s+)?(?:tests?|specs?|examples?|cases?)(?:\s+total)?\s*(?:\([^)]*\)\s*)?(?:,|:|—|–|-)?\s*all\s+(?:pass|passes|passed|passing|green)\b`)
	nPassed  = regexp.MustCompile(`\b(\d+)\s+(?:tests?\s+|specs?\s+|examples?\s+|cases?\s+)?(?:are\s+|now\s+)*(?:pass|passes|passed|passing)\b`)
	markdown = strings.NewReplacer("**", "", "__", "", "`", "", "✅", "", "✓", "", "✔", "", "🎉", "", "*", "")
)

// claimWords are words at least one of which every claim pattern needs: a sentence (or a
// message) that holds none of them matches no pattern, and is not searched with them.
// TestClaimWords and FuzzFindClaimWords check that this changes nothing Find returns.
var claimWords = []string{
	"test", "spec", "suite", "pass", "green", "ok", "example", "case", "fail", "buil", "compil",
	"lint", "clippy", "rubocop", "ruff", "go vet", "staticcheck", "flake8", "credo",
	"type", "tsc", "mypy", "pyright",
}

// mayClaim reports whether low, lower-cased text with markdown removed, holds a claim word.
func mayClaim(low string) bool {
	for _, w := range claimWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// Find returns the verification claims in a final message, in order. A sentence that mentions
// a verification without asserting it (a plan, a condition, a question, a negation) is not a
// claim.
func Find(text string) []Claim {
	// Most final messages hold no claim word at all: they are not split into sentences.
	// Markdown removal and lower-casing keep every sentence's letters in the whole text's
	// order, so a word a sentence holds, the whole text holds too.
	if !mayClaim(strings.ToLower(markdown.Replace(text))) {
		return nil
	}
	return find(text, true)
}

// ackFailure is a sentence that reports failing tests as they stand: "383 passed, 1 failed",
// "the only remaining failure is test_x", "two failures remain". fixedBefore marks a sentence
// about failures that are gone ("fixed the 2 failing tests", "the failures were caused by"),
// which reports nothing left failing.
var (
	ackFailure  = regexp.MustCompile(`\b(?:[1-9]\d*|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:[\w-]+\s+){0,2}?(?:failed|failing|failures?)\b|\bremaining (?:test )?failures?\b|\bonly (?:remaining )?failure\b`)
	fixedBefore = regexp.MustCompile(`\b(?:fix|fixed|fixes|fixing|resolv\w*|repair\w*|address\w*|caus\w*|were|was|previously|before|used to|down from|up from)\b`)
)

// find is Find after its first test; pre says whether to skip sentences without a claim word
// (the tests turn it off to check that doing so changes nothing).
func find(text string, pre bool) []Claim {
	out := findSentences(text, pre)
	if !slices.ContainsFunc(out, func(c Claim) bool { return c.Kind == Tests }) {
		return out // what follows hedges test claims only
	}
	// A message that itself reports tests still failing has told the reader the run was not
	// clean: its other test claims ("383 tests pass in Docker") are read with that report, as
	// hedged, not as a claim that everything passed.
	for _, s := range sentences(text) {
		low := strings.ToLower(markdown.Replace(s))
		if !strings.Contains(low, "fail") {
			continue // ackFailure needs a word of failing, and stripping only takes text away
		}
		if ackFailure.MatchString(stripZeroFailures(low)) && !fixedBefore.MatchString(low) {
			for i := range out {
				if out[i].Kind == Tests {
					out[i].Hedged = true
				}
			}
			break
		}
	}
	return out
}

func findSentences(text string, pre bool) []Claim {
	var out []Claim
	for _, s := range sentences(text) {
		clean := strings.TrimSpace(markdown.Replace(s))
		low := strings.ToLower(clean)
		if pre && !mayClaim(low) {
			continue
		}
		for _, p := range claimPatterns {
			if !p.re.MatchString(low) {
				continue
			}
			stripped := stripZeroFailures(low)
			if notAssertion.MatchString(stripped) {
				break
			}
			c := Claim{Kind: p.kind, Sentence: clean}
			c.Hedged = hedge.MatchString(stripped)
			if p.kind == Tests {
				c.Passed, c.Total = claimedCounts(low)
				// "84/86 pass" acknowledges two failures.
				c.Hedged = c.Hedged || c.Passed < c.Total
				c.Subset = subset.MatchString(low)
			}
			out = append(out, c)
			break
		}
	}
	return out
}

// stripZeroFailures removes "0 failed"/"no failures" phrases, which state the claim rather
// than hedge or negate it.
func stripZeroFailures(s string) string {
	return warningsAside.ReplaceAllString(zeroFailures.ReplaceAllString(s, ""), "")
}

// claimedCounts reads the numbers a test claim states: "86/86 pass" (86 of 86), "all 86 tests
// pass" (86 of 86), "447 total tests (284 unit + 163 API) all pass" (447 of 447), "42 tests
// passed" (42 passed).
func claimedCounts(s string) (passed, total int) {
	if m := ratio.FindStringSubmatch(s); m != nil {
		p, _ := strconv.Atoi(m[1])
		t, _ := strconv.Atoi(m[2])
		if t > 0 && p <= t {
			return p, t
		}
	}
	if m := allN.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, n
	}
	if m := nAll.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, n
	}
	if m := nPassed.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, 0
	}
	return 0, 0
}

// sentences splits text into sentences: at line breaks, and after '.', '!' or '?' followed by
// a space. Code blocks are skipped: a claim is prose.
func sentences(text string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" {
			continue
		}
		t = strings.TrimLeft(t, "-*+>#| \t")
		start := 0
		for i := 0; i < len(t); i++ {
			switch t[i] {
			case '.', '!', '?':
				if i+1 == len(t) || t[i+1] == ' ' {
					if s := strings.TrimSpace(t[start : i+1]); s != "" {
						out = append(out, s)
					}
					start = i + 1
				}
			}
		}
		if s := strings.TrimSpace(t[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
