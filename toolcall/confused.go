package toolcall

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// confusedMaxRunes is the longest reply [LooksConfused] will flag: real answers are longer.
// The declaration's bound; the origin's later variant raised branch A to 600, which no case
// needs, so the more conservative bound stays.
const confusedMaxRunes = 400

// The patterns are matched against the lower-cased reply.
var (
	// reContract: the tool contract's own noun phrases, including the tool list read back as a
	// list of "tasks, actions or operations".
	reContract = regexp.MustCompile(`\btools?\s+calls?\b|\bexample\s+call\b` +
		`|\b(?:provided|given)\s+(?:example|call|schema|arguments?|tools?|information|json)\b` +
		`|\bdictionary\s+of\s+(?:tasks|actions|tools)\b|\bstructured\s+api\s+response\b` +
		`|\b(?:tasks|actions)\s*[,.]?\s+and\s+(?:their\s+)?parameters\b` +
		`|\b(?:tasks|actions|operations)\b(?:\s*(?:,|\band\b|\bor\b)\s*(?:tasks|actions|operations)\b)+`)
	// reConfusedTone: an apologetic or confused meta-tone.
	reConfusedTone = regexp.MustCompile(`\bsorry\b|\bi\s+(?:cannot|can['’]t|can\s+not)\b` +
		`|\bcould\s+(?:you|u)\s+please\b|\bprovide\s+(?:more\s+)?(?:context|details|information|clarification)\b` +
		`|\b(?:incomplete|invalid|malformed|unclear)\b|\bnot\s+fully\s+defined\b|\bdirectly\s+interpret\b`)
	// reFollowupWords: the end-of-turn marker, named or paraphrased (suggestions, follow-ups).
	reFollowupWords = regexp.MustCompile(`\bsuggest\w*|\bfollow[\s-]?ups?\b`)
	// reOfferToHelp: an offer to help, or a request for input.
	reOfferToHelp = regexp.MustCompile(`\bi\s+(?:can|could|will|would)\s+(?:help|assist)\b|\bi['’]ll\s+(?:help|assist)\b` +
		`|\bi['’]?m\s+ready\s+to\s+help\b|\b(?:happy|glad)\s+to\s+help\b|\bi['’]d\s+be\s+happy\b` +
		`|\bplease\s+(?:provide|share|give|tell|specify)\b|\blet\s+me\s+know\b|\bcould\s+you\s+please\b`)
	// rePleaseAsk: an ask in the imperative.
	rePleaseAsk = regexp.MustCompile(`\bplease\s+(?:provide|share|give|tell|specify)\b`)
)

// LooksConfused reports whether a reply talks about the tool contract instead of executing it:
// the model apologising that "the provided example call to suggest_followups is incomplete",
// or answering the end-of-turn instruction as if it were the request ("Sure, I can help you
// with suggestions and followups. Please provide more details."). Such a reply never throws,
// so a failover that fires only on errors delivers it verbatim; a caller treats a true verdict
// as a generation failure (retry on another model, keep the raw reply as the last resort).
//
// tools are the tool names to look for, matched as written (case-sensitive, as a model echoes
// an identifier); nil or empty means the end-of-turn marker, [DefaultMarker].
//
// Detection is conservative: a reply is flagged only when it is short (at most 400
// characters; real answers are longer) and either
//
//   - A, contract meta-talk: it uses the contract's vocabulary (a tool name, "tool call",
//     "provided example", "given schema", "dictionary of tasks", "tasks or actions", …) and
//     carries an apologetic or confused tone ("sorry", "I cannot", "could you please",
//     "incomplete", "invalid", …); or
//   - B, the marker's instruction read as the request: it uses the marker's vocabulary
//     ("suggest…", "follow-ups"; a paraphrase, not the name), offers help ("I can help",
//     "I'm ready to help", "please provide", …) and asks for something (a question mark, or
//     "please provide/share/…").
//
// A legitimate answer that merely mentions a tool ("Sure — I can call suggest_followups once
// the song is written.") or apologises about something else ("Sorry for the delay — here is
// your song") is not flagged.
func LooksConfused(content string, tools []string) bool {
	text := strings.TrimSpace(content)
	if text == "" || utf8.RuneCountInString(text) > confusedMaxRunes {
		return false
	}
	if len(tools) == 0 {
		tools = []string{DefaultMarker}
	}
	// Cheap gates first: most replies carry neither branch's words, and the patterns are
	// matched only when one might.
	lower := strings.ToLower(text)
	if containsAny(lower, toneWords) && reConfusedTone.MatchString(lower) {
		for _, t := range tools {
			if t != "" && strings.Contains(text, t) {
				return true
			}
		}
		if reContract.MatchString(lower) {
			return true
		}
	}
	return (strings.Contains(lower, "suggest") || strings.Contains(lower, "follow")) &&
		reFollowupWords.MatchString(lower) && reOfferToHelp.MatchString(lower) &&
		(strings.Contains(text, "?") || rePleaseAsk.MatchString(lower))
}

// toneWords holds a fragment of every reConfusedTone alternative, lower-cased.
var toneWords = []string{"sorry", "can", "please", "provide", "incomplete", "invalid", "malformed", "unclear", "defined", "interpret"}
