package stall

import (
	"strconv"
	"strings"
)

// MetadataLivelocked is the message-metadata key that records a livelock exit: the run was
// ended because the agent repeated the same tool call without making progress. Its value is
// the boolean true or the string "true".
const MetadataLivelocked = "livelocked"

// DefiniteStallFor reports whether a final message is a stall that needs no classifier, and
// returns the nudge to send when it is.
//
// A livelock exit (metadata[MetadataLivelocked] is true, or the string "true" in any case) is
// the strongest stall signal there is: the agent was told to keep working and demonstrably
// could not make progress. It outranks an open todo item and nudges at once with a
// livelock-specific message. No classifier is consulted, because the message that follows a
// livelock ("I stopped because I was going in circles…") reads as a hand-back to the user
// and a classifier would rightly decline, leaving a livelocked agent parked waiting for a
// person. text is the final message; the nudge quotes its last sentence when it has one.
func DefiniteStallFor(text string, metadata map[string]any) (nudge string, ok bool) {
	if !livelocked(metadata) {
		return "", false
	}
	return livelockNudge(DanglingSentence(text)), true
}

// livelocked reads the livelock flag off message metadata.
func livelocked(metadata map[string]any) bool {
	switch v := metadata[MetadataLivelocked].(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return false
}

// The nudges. Each tells the agent what was seen and what to do, and gives it a way out that
// is not another stall: a plain final message saying it is done or what it needs.

func livelockNudge(sentence string) string {
	var b strings.Builder
	b.WriteString("You were stopped for repeating the same tool call without making progress")
	if sentence != "" {
		b.WriteString(", and your last message ended: ")
		b.WriteString(quote(sentence))
	}
	b.WriteString(". The task is not finished. Do not repeat that call. Re-read its last result " +
		"or error, work out why it changes nothing, and try a different approach. If you are " +
		"truly blocked, say exactly what you need and from whom.")
	return b.String()
}

func todoNudge(todos []string) string {
	const show = 5
	var b strings.Builder
	if len(todos) == 1 {
		b.WriteString("Your todo list still has an open item: ")
	} else {
		b.WriteString("Your todo list still has open items: ")
	}
	for i, t := range todos {
		if i == show {
			b.WriteString(" and ")
			b.WriteString(strconv.Itoa(len(todos) - show))
			b.WriteString(" more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(quote(t))
	}
	b.WriteString(". Continue with the next one. If an item no longer applies, mark it done " +
		"or drop it and say why; if you need the user, say exactly what you need.")
	return b.String()
}

func danglingNudge(sentence string) string {
	return "You ended your turn on " + quote(sentence) + " without doing it. If that work " +
		"still needs doing, do it now. If you are finished, or need something from the user, " +
		"say so plainly in a final message."
}

func permissionNudge(sentence string) string {
	return "Nobody is here to answer " + quote(sentence) + ": this run is autonomous. Go " +
		"ahead with the most reasonable option yourself. If something truly blocks you, end " +
		"with a final message that says exactly what."
}

// maxQuote bounds a sentence quoted in a nudge, in runes.
const maxQuote = 200

// quote renders s for a nudge: whitespace collapsed, cut to maxQuote runes, in quotes.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if n := 0; len(s) > maxQuote {
		for i := range s {
			if n == maxQuote {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return "\"" + s + "\""
}
