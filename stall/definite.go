package stall

import (
	"fmt"
	"strings"

	"github.com/stopgate/stopgate/loopguard"
)

// DefiniteStallFor reports whether a final message is a stall that needs no classifier, and
// returns the nudge to send when it is.
//
// A livelock exit (metadata[[loopguard.MetadataLivelocked]] is true, or the string "true" in any case) is
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
	switch v := metadata[loopguard.MetadataLivelocked].(type) {
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

// TodoNudge is the nudge for open todo items, whether read off the message's own checklist
// ([OpenTodos]) or off the harness's todo list: it lists the first ten and counts the rest.
func TodoNudge(items []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your todo list still has %d open item(s):\n", len(items))
	const show = 10
	for i, it := range items {
		if i == show {
			fmt.Fprintf(&b, "- … and %d more\n", len(items)-show)
			break
		}
		fmt.Fprintf(&b, "- %s\n", it)
	}
	b.WriteString("Work through them now. If an item is done, mark it completed; if you decided not to do one, remove it and say why. Then end your turn.")
	return b.String()
}

// danglingNudge is the nudge for a final message that trails off on a promise; mode says
// whether anyone will answer a question.
func danglingNudge(sentence string, mode Mode) string {
	var b strings.Builder
	if sentence != "" {
		fmt.Fprintf(&b, "Your last message ended with %q, but the turn ended before you did it.", sentence)
	} else {
		b.WriteString("Your last message ended on a next step, but the turn ended before you took it.")
	}
	b.WriteString(" If that work is still to be done, do it now.")
	b.WriteString(" If it is finished, or you decided against it, say so in one short final message (for example \"Done: …\" or \"Not doing X because …\") and stop.")
	if mode == Autonomous {
		b.WriteString(" Nobody will answer a question in this run: make the call yourself.")
	} else {
		b.WriteString(" If you need the user to decide, ask the question plainly.")
	}
	return b.String()
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
