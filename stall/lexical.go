package stall

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mode is who, if anyone, will read the agent's final message.
type Mode string

// The modes. Any value other than Autonomous, the zero value included, is read as
// Interactive: the conservative reading, in which fewer endings are stalls.
const (
	// Interactive: a person is there to answer, so a question or permission-ask handed to
	// the user is a legitimate end of a turn.
	Interactive Mode = "interactive"
	// Autonomous: nobody will answer, so asking permission to go on ("Shall I proceed?") is
	// a stall.
	Autonomous Mode = "autonomous"
)

// Verdict is the lexical classifier's reading of a final message.
type Verdict struct {
	// Stalled reports that the message ends on an untaken next action.
	Stalled bool
	// Sentence is the dangling sentence, as [DanglingSentence] returns it.
	Sentence string
	// Why names the rule that decided, in a few words.
	Why string
	// Decisive reports, for a verdict that is not a stall, that the message positively ends
	// the turn (a question or request handed to the user, a report of being blocked,
	// explicit parking on background work), rather than merely showing no stall signal.
	// [IsStalled] asks no model about a decisive ending.
	Decisive bool
}

// The rule names a Verdict's Why carries.
const (
	whyEmpty       = "no prose"
	whyCode        = "ends with a code block"
	whyColon       = "ends on a colon that introduces nothing"
	whyPermission  = "asks permission to go on, and nobody will answer (autonomous)"
	whyQuestion    = "hands a question to the user"
	whyHandBack    = "hands the turn back to the user"
	whyBlocked     = "reports being blocked"
	whyParked      = "parks on background work"
	whyDeferred    = "defers the work"
	whyConditional = "offers an action conditional on the user"
	whyNegated     = "declines the action"
	whyIntent      = "announces its next action in the first person"
	whyObligation  = "states an action it must take next"
	whyProgressive = "narrates an action as under way"
	whyNoSignal    = "no stall signal"
)

// ClassifyLexical reads the end of an agent's final message and says whether it is a stall,
// without a model. It is deliberately conservative: when no rule is sure, the verdict is no
// stall.
//
// It reads the last sentence of prose (and, in [Autonomous] mode, the one before it), by its
// grammar rather than by phrases from any one agent. A stall is:
//   - first-person intent to act at the head of a clause: "Let me …", "Let's …", "I'll …",
//     "I will …", "I'm going to …", "Now I'll …" (and the "we" forms), or first-person
//     obligation: "I need to …", "I should …"; in each case followed by an action, not by a
//     verb of knowing, being, waiting, stopping or leaving things be;
//   - an action narrated as under way: "Proceeding with the implementation.", "Running the
//     tests now.";
//   - a trailing colon that introduces content which never comes ("Here is the patch:");
//   - in [Autonomous] mode, a question asking leave to go on ("Shall I proceed?"), alone or
//     followed by a hand-back.
//
// Not a stall, whatever else the sentence holds: a question to the user (in [Interactive]
// mode, or any question that is not about going on), a request handed back ("Let me know
// …", "Please …"), a report of being blocked ("I can't …", "I need to see the logs"),
// explicit parking on background work ("I'll wait for the CI run to finish", "the job wakes
// me when it exits", "once the build completes, I'll …"), a deferral ("later", "going
// forward"), a declined action ("I won't …"), an offer conditional on the user ("If you
// want, I'll …", "Tell me which, and I'll …"), and a message that ends with a code block.
// Past-tense summaries, answers and statements about the code ("This will fix …") carry no
// first-person intent and are not stalls. Text inside inline code and double quotes is not
// read.
func ClassifyLexical(text string, mode Mode) Verdict {
	t := readTail(text)
	if t.last.end == 0 {
		return Verdict{Why: whyEmpty}
	}
	sentence := text[t.last.start:t.last.end]
	v := Verdict{Sentence: sentence}
	if t.endsInCode {
		v.Why = whyCode
		return v
	}
	if endsWithColon(sentence) {
		v.Stalled, v.Why = true, whyColon
		return v
	}
	last := newClause(sentence)
	autonomous := mode == Autonomous
	if isQuestion(sentence) {
		if autonomous && last.asksToGoOn() {
			v.Stalled, v.Why = true, whyPermission
			return v
		}
		v.Why, v.Decisive = whyQuestion, true
		return v
	}
	if autonomous && t.prev.end > 0 {
		prev := text[t.prev.start:t.prev.end]
		if isQuestion(prev) && newClause(prev).asksToGoOn() && last.handsBack() {
			v.Stalled, v.Why = true, whyPermission
			return v
		}
	}
	v.Stalled, v.Why, v.Decisive = last.judge()
	return v
}

// isQuestion reports whether s ends in a question mark.
func isQuestion(s string) bool {
	r := lastMark(s)
	return r == '?' || r == '？' || r == '؟'
}

// clause is a sentence as normalised lower-case words, contractions expanded ("I'll" is
// "i will", "let's" is "let us", "won't" is "will not"), with inline code and quoted text
// each reduced to one placeholder word and punctuation kept as "," where it separates
// clauses.
type clause struct {
	w []string
	// ellipsis reports that the sentence ended in "..." or "…".
	ellipsis bool
}

const (
	codeWord  = "\x00code"
	quoteWord = "\x00quote"
	comma     = ","
)

// newClause tokenises s.
func newClause(s string) clause {
	c := clause{w: make([]string, 0, 24)}
	trimmed := strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || isCloser(r) || isDecoration(r)
	})
	c.ellipsis = strings.HasSuffix(trimmed, "...") || strings.HasSuffix(trimmed, "…")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			if j := closingTicks(s[i+n:], n); j >= 0 {
				c.w = append(c.w, codeWord)
				i += n + j + n
			} else {
				i += n
			}
		case r == '"' || r == '“':
			closeQ := "\""
			if r == '“' {
				closeQ = "”"
			}
			if j := strings.Index(s[i+size:], closeQ); j >= 0 {
				c.w = append(c.w, quoteWord)
				i += size + j + len(closeQ)
			} else {
				i += size
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) {
					j += sz
					continue
				}
				// An apostrophe or hyphen between letters stays inside the word.
				if r2 == '\'' || r2 == '’' || r2 == '-' {
					if r3, _ := utf8.DecodeRuneInString(s[j+sz:]); j+sz < len(s) && unicode.IsLetter(r3) {
						j += sz
						continue
					}
				}
				break
			}
			c.addWord(s[i:j])
			i = j
		case r == ',' || r == ';' || r == ':' || r == '(' || r == ')' || r == '—' || r == '–' ||
			r == '.' || r == '!' || r == '?':
			if n := len(c.w); n > 0 && c.w[n-1] != comma {
				c.w = append(c.w, comma)
			}
			i += size
		default:
			i += size
		}
	}
	return c
}

// contractions maps a contracted suffix to the word it stands for.
var contractions = map[string]string{
	"ll": "will", "m": "am", "re": "are", "ve": "have", "d": "would",
}

// addWord appends a word in lower case, expanding contractions.
func (c *clause) addWord(word string) {
	word = strings.ToLower(strings.ReplaceAll(word, "’", "'"))
	if strings.HasSuffix(word, "n't") {
		base := word[:len(word)-3]
		switch base {
		case "wo":
			base = "will"
		case "ca":
			base = "can"
		case "sha":
			base = "shall"
		case "ai":
			base = "am"
		}
		c.w = append(c.w, base, "not")
		return
	}
	if i := strings.LastIndexByte(word, '\''); i > 0 {
		base, suf := word[:i], word[i+1:]
		if full, ok := contractions[suf]; ok {
			c.w = append(c.w, base, full)
			return
		}
		if suf == "s" {
			if base == "let" {
				c.w = append(c.w, "let", "us")
			} else {
				c.w = append(c.w, base) // possessive or "is": neither matters here
			}
			return
		}
	}
	c.w = append(c.w, word)
}

// at reports whether the words from i on are seq.
func (c clause) at(i int, seq ...string) bool {
	if i < 0 || i+len(seq) > len(c.w) {
		return false
	}
	for k, s := range seq {
		if c.w[i+k] != s {
			return false
		}
	}
	return true
}

// has reports whether seq occurs anywhere in the clause.
func (c clause) has(seq ...string) bool {
	for i := range c.w {
		if c.at(i, seq...) {
			return true
		}
	}
	return false
}

// hasAny reports whether any of words occurs in the clause.
func (c clause) hasAny(words map[string]bool) bool {
	for _, w := range c.w {
		if words[w] {
			return true
		}
	}
	return false
}

// word returns the i-th word, or "".
func (c clause) word(i int) string {
	if i < 0 || i >= len(c.w) {
		return ""
	}
	return c.w[i]
}

// goOnVerbs are the verbs of carrying on with the work in hand. A question built on one asks
// permission to continue.
var goOnVerbs = map[string]bool{
	"proceed": true, "proceeding": true, "continue": true, "continuing": true, "start": true,
	"begin": true, "resume": true,
}

// asksToGoOn reports a question asking leave to carry on: built on proceed, continue, start,
// begin or resume, or on "go ahead", "move on", "carry on", "keep going", "get started".
func (c clause) asksToGoOn() bool {
	if c.hasAny(goOnVerbs) {
		return true
	}
	return c.has("go", "ahead") || c.has("move", "on") || c.has("move", "forward") ||
		c.has("carry", "on") || c.has("keep", "going") || c.has("get", "started")
}

// handBackPhrases hand the turn to the user: a request, an invitation, advice addressed to
// them.
var handBackPhrases = [][]string{
	{"let", "me", "know"}, {"let", "us", "know"}, {"tell", "me"}, {"please"}, {"feel", "free"},
	{"if", "you"}, {"when", "you"}, {"once", "you"}, {"after", "you"}, {"unless", "you"},
	{"whenever", "you"}, {"you", "can"}, {"you", "may"}, {"you", "could"}, {"you", "might"},
	{"you", "should"}, {"you", "need"}, {"you", "will", "need"}, {"up", "to", "you"},
	{"your", "call"}, {"your", "input"}, {"your", "confirmation"}, {"your", "approval"},
	{"your", "decision"}, {"your", "preference"}, {"you", "would", "like"}, {"you", "prefer"},
}

// handsBack reports a sentence that hands the turn to the user.
func (c clause) handsBack() bool {
	for _, p := range handBackPhrases {
		if c.has(p...) {
			return true
		}
	}
	return false
}

// blocked reports a sentence saying the agent cannot go on by itself.
func (c clause) blocked() bool {
	return c.has("i", "can", "not") || c.has("i", "cannot") || c.has("unable", "to") ||
		c.has("not", "able", "to") || c.has("i", "am", "blocked") || c.has("blocked", "by") ||
		c.has("blocked", "on") || c.has("i", "need", "you") || c.has("need", "your") ||
		c.has("do", "not", "have", "access") || c.has("no", "access")
}

// completionWords finish a temporal clause about background work: "once the build
// completes", "when the job exits".
var completionWords = map[string]bool{
	"finishes": true, "finished": true, "completes": true, "completed": true, "exits": true,
	"exited": true, "done": true, "returns": true, "lands": true, "ends": true, "complete": true,
	"finish": true,
}

// parked reports a sentence that parks on work running elsewhere: waiting for it, being woken
// or notified by it, ending the turn rather than polling, or acting only once it completes.
func (c clause) parked() bool {
	for i, w := range c.w {
		switch w {
		case "wait", "waiting", "await", "awaiting", "waits":
			return true
		case "wake", "wakes", "woken", "waken", "woke":
			return true
		case "poll", "polling":
			if c.word(i-1) == "not" || c.word(i-1) == "of" || c.word(i-1) == "than" || c.word(i-1) == "no" {
				return true
			}
		case "notify", "notifies", "ping", "pings":
			if c.word(i+1) == "me" || c.word(i+1) == "us" {
				return true
			}
		case "notified":
			return true
		case "turn":
			if p := c.word(i - 1); (p == "my" || p == "the" || p == "this") &&
				(c.word(i-2) == "end" || c.word(i-2) == "ending" || c.word(i-2) == "ends") {
				return true
			}
		case "once", "when", "after", "until", "till":
			for k := i + 1; k < len(c.w) && k <= i+6 && c.w[k] != comma; k++ {
				if completionWords[c.w[k]] {
					return true
				}
			}
		}
	}
	return false
}

// deferWords put the work off to another time.
var deferWords = map[string]bool{"later": true, "tomorrow": true, "eventually": true}

// deferPhrases put the work off, or speak of habit rather than the next step ("Going
// forward, I'll run the linter first.").
var deferPhrases = [][]string{
	{"going", "forward"}, {"from", "now", "on"}, {"in", "the", "future"}, {"in", "future"},
	{"next", "time"}, {"next", "session"}, {"another", "time"}, {"at", "some", "point"},
}

// defers reports a sentence that puts the work off.
func (c clause) defers() bool {
	if c.hasAny(deferWords) {
		return true
	}
	for _, p := range deferPhrases {
		if c.has(p...) {
			return true
		}
	}
	return false
}

// subjects open a first-person clause.
var subjects = map[string]bool{"i": true, "we": true}

// notAfter are words after which "I" or "we" opens a relative or embedded clause ("the tests
// that I will add"), not a statement of intent.
var notAfter = map[string]bool{
	"that": true, "which": true, "who": true, "whom": true, "what": true, "how": true,
	"where": true, "whether": true, "why": true, "than": true, "as": true, "if": true,
	"unless": true, "wish": true,
}

// skipAdverbs may stand between an intent and its verb.
var skipAdverbs = map[string]bool{
	"now": true, "also": true, "just": true, "then": true, "first": true, "next": true,
	"quickly": true, "briefly": true, "actually": true, "finally": true, "immediately": true,
	"still": true, "simply": true, "carefully": true, "directly": true, "instead": true,
	"again": true, "additionally": true, "further": true, "right": true, "away": true,
	"go": true, "ahead": true, "and": true, "really": true, "definitely": true, "probably": true,
	"need": true, "have": true, "to": true, "try": true,
}

// nonActions are verbs that, after an intent, do not announce work: knowing, being, waiting,
// stopping, leaving things be, thinking, saying, helping the user.
var nonActions = map[string]bool{
	"know": true, "be": true, "wait": true, "stop": true, "pause": true, "end": true,
	"leave": true, "remain": true, "stay": true, "await": true, "keep": true, "hold": true,
	"let": true, "want": true, "like": true, "love": true, "hope": true, "assume": true,
	"suppose": true, "guess": true, "think": true, "believe": true, "note": true,
	"mention": true, "say": true, "stress": true, "emphasize": true, "emphasise": true,
	"admit": true, "acknowledge": true, "apologize": true, "apologise": true, "help": true,
	"defer": true, "refrain": true, "rest": true, "sit": true, "appreciate": true,
	"expect": true, "trust": true, "return": true, "respect": true, "accept": true,
	"need": true, "have": true, "not": true, "never": true, "no": true, "hand": true,
	"ask": true, "wrap": true, "conclude": true, "remember": true,
}

// needsInput are verbs that, after "I need to", ask for something rather than promise work.
var needsInput = map[string]bool{"see": true, "know": true, "understand": true}

// judge reads a statement (not a question) and returns the verdict.
func (c clause) judge() (stalled bool, why string, decisive bool) {
	switch {
	case c.handsBack():
		return false, whyHandBack, true
	case c.blocked():
		return false, whyBlocked, true
	case c.parked():
		return false, whyParked, true
	case c.defers():
		return false, whyDeferred, false
	}
	if i, kind := c.intent(); i >= 0 {
		// Anything addressed to the user, or hypothetical, before the intent conditions it.
		for _, w := range c.w[:i] {
			if w == "you" || w == "your" || w == "if" || w == "unless" {
				return false, whyConditional, false
			}
		}
		v, ok := c.verbAfter(i)
		switch {
		case !ok:
		case v == "not" || v == "never":
			return false, whyNegated, false
		case nonActions[v]:
		case kind == whyObligation && needsInput[v]:
			// "I need to see the full error": a request for input, not a promise.
			return false, whyBlocked, true
		case v == "see" && c.word(i-1) != "me" && c.word(i-1) != "us":
			// "We'll see", "I'll see what I can do": wait and see. "Let me see" looks.
		case c.word(c.verbIndex(i)+1) == "back", v == "follow" && c.word(c.verbIndex(i)+1) == "up":
			// Check back, report back, come back, follow up: later, not now.
			return false, whyDeferred, false
		default:
			return true, kind, false
		}
	}
	if c.progressive() {
		return true, whyProgressive, false
	}
	return false, whyNoSignal, false
}

// intent finds the first intent construction and returns the index just after it (where
// its verb, perhaps after adverbs, is), or -1.
func (c clause) intent() (int, string) {
	for i, w := range c.w {
		if w == "let" && (c.word(i+1) == "me" || c.word(i+1) == "us") {
			if i == 0 || !notAfter[c.word(i-1)] {
				return i + 2, whyIntent
			}
			continue
		}
		if !subjects[w] || notAfter[c.word(i-1)] {
			continue
		}
		switch {
		case c.at(i+1, "will", "need", "to"), c.at(i+1, "will", "have", "to"):
			if w == "i" {
				return i + 4, whyObligation
			}
			// "We'll need to revisit this": advice about the future, not a promise.
		case c.at(i+1, "will"), c.at(i+1, "shall"):
			return i + 2, whyIntent
		case c.at(i+1, "am", "going", "to"), c.at(i+1, "are", "going", "to"):
			return i + 4, whyIntent
		case c.at(i+1, "am", "gonna"), c.at(i+1, "are", "gonna"):
			return i + 3, whyIntent
		case w == "i" && (c.at(i+1, "need", "to") || c.at(i+1, "have", "to") || c.at(i+1, "still", "need", "to")):
			j := i + 3
			if c.at(i+1, "still") {
				j++
			}
			return j, whyObligation
		case w == "i" && (c.at(i+1, "must") || c.at(i+1, "should")):
			return i + 2, whyObligation
		}
	}
	if c.at(0, "need", "to") {
		return 2, whyObligation
	}
	return -1, ""
}

// verbIndex returns the index of the verb after an intent ending at i, skipping adverbs.
func (c clause) verbIndex(i int) int {
	for i < len(c.w) && skipAdverbs[c.w[i]] {
		// "go ahead and", "need to", "try to": keep skipping; "go" alone is a verb.
		if c.w[i] == "go" && c.word(i+1) != "ahead" {
			return i
		}
		if (c.w[i] == "need" || c.w[i] == "have") && c.word(i+1) != "to" {
			return i
		}
		if c.w[i] == "try" && c.word(i+1) != "to" {
			return i
		}
		i++
	}
	return i
}

// verbAfter returns the verb of an intent ending at i.
func (c clause) verbAfter(i int) (string, bool) {
	j := c.verbIndex(i)
	if j >= len(c.w) {
		return "", false
	}
	v := c.w[j]
	if v == comma || v == codeWord || v == quoteWord {
		return "", false
	}
	return v, true
}

// stativeGerunds are -ing words that are not work being carried out.
var stativeGerunds = map[string]bool{
	"waiting": true, "seeing": true, "getting": true, "having": true, "thinking": true,
	"assuming": true, "hoping": true, "wondering": true, "noticing": true, "going": true,
	"stopping": true, "ending": true, "pausing": true, "leaving": true, "looking": true,
	"missing": true, "facing": true, "experiencing": true, "expecting": true, "feeling": true,
	"nothing": true, "something": true, "anything": true, "everything": true, "thing": true,
	"string": true, "morning": true, "evening": true, "during": true,
}

// onwardGerunds move the work forward: "Proceeding with …", "Moving on to …".
var onwardGerunds = map[string]bool{
	"proceeding": true, "continuing": true, "moving": true, "starting": true,
	"beginning": true, "resuming": true, "switching": true, "turning": true, "heading": true,
}

// finiteMarks are auxiliaries and copulas: their presence means a gerund-initial sentence has
// a finite verb ("Testing is complete.") and is a statement, not narration.
var finiteMarks = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "has": true, "have": true, "had": true,
	"will": true, "would": true, "can": true, "could": true, "should": true, "does": true,
	"did": true, "do": true, "may": true, "might": true, "must": true, "am": true,
}

// progressive reports an action narrated as under way: "Proceeding with the fix.", "Moving
// on to the tests.", "Running the tests now.", "Checking the logs…", "I'm now running the
// build.".
func (c clause) progressive() bool {
	if len(c.w) == 0 {
		return false
	}
	// First person: "I am (now) Xing" with now, or an onward gerund.
	for i, w := range c.w {
		if !subjects[w] || notAfter[c.word(i-1)] || !(c.at(i+1, "am") || c.at(i+1, "are")) {
			continue
		}
		j := i + 2
		for j < len(c.w) && skipAdverbs[c.w[j]] && c.w[j] != "go" {
			j++
		}
		g := c.word(j)
		if !isGerund(g) || stativeGerunds[g] {
			continue
		}
		if onwardGerunds[g] || c.has("now") {
			return true
		}
	}
	// Gerund first, no finite verb: narration.
	g := c.w[0]
	if !isGerund(g) || stativeGerunds[g] || c.hasAny(finiteMarks) {
		return false
	}
	if onwardGerunds[g] {
		switch c.word(1) {
		case "on", "with", "to", "onto", "into", "ahead", "now", "next", comma, "":
			return true
		}
		return false
	}
	last := c.w[len(c.w)-1]
	if last == comma && len(c.w) > 1 {
		last = c.w[len(c.w)-2]
	}
	return last == "now" || c.ellipsis
}

// isGerund reports a word that looks like an -ing form.
func isGerund(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ing")
}
