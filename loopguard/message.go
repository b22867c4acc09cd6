package loopguard

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what a message quotes, so a long argument, error or reply cannot swamp it.
const (
	maxArgsRunes  = 160
	maxErrorRunes = 200
	maxTextRunes  = 160
)

// callMessage renders the message of a call pattern's verdict. last is the call the verdict is
// about; other and otherArgs (canonical) are the other call of an alternation.
func callMessage(v Verdict, last, other Step, otherArgs string) string {
	call := describeCall(v.Tool, v.Args)
	lastErr := clip(last.Error, maxErrorRunes)
	if v.Action == Warn {
		switch v.Pattern {
		case RepeatedCall:
			return fmt.Sprintf("Loop guard: you have called %s %d times in a row and got the same result each time. Calling it again will not change that: use the result you have, or take a different approach.", call, v.Count)
		case RepeatedError:
			return fmt.Sprintf("Loop guard: you have called %s %d times in a row and it failed each time (last error: %s). Repeating it will not work: read the error, then change the arguments or the approach.", call, v.Count, lastErr)
		case Alternation:
			return fmt.Sprintf("Loop guard: your last %d steps alternate between %s and %s, and neither result has changed. This is not making progress: use what they returned, or take a different approach.", v.Count, describeCall(other.Tool, otherArgs), call)
		}
	}
	switch v.Pattern {
	case RepeatedCall:
		return fmt.Sprintf("Loop guard halted the run: %s was called %d times in a row and returned the same result each time.", call, v.Count)
	case RepeatedError:
		return fmt.Sprintf("Loop guard halted the run: %s was called %d times in a row and failed each time (last error: %s).", call, v.Count, lastErr)
	case Alternation:
		return fmt.Sprintf("Loop guard halted the run: the last %d steps alternated between %s and %s with unchanged results.", v.Count, describeCall(other.Tool, otherArgs), call)
	case ConsecutiveErrors:
		return fmt.Sprintf("Tool-error budget spent: the last %d tool calls failed (last: %s: %s); the run ends rather than spend another model call.", v.Count, v.Tool, lastErr)
	}
	return ""
}

// replyMessage renders the message of a reply pattern's verdict; text is the repeated reply.
func replyMessage(v Verdict, text string) string {
	quoted := fmt.Sprintf("%q", clip(text, maxTextRunes))
	switch {
	case v.Pattern == RepeatedMessage && v.Action == Warn:
		return fmt.Sprintf("Loop guard: you have sent the same reply %d times in a row (%s). Do something different: call a tool to make progress, or give your final answer.", v.Count, quoted)
	case v.Pattern == RepeatedMessage:
		return fmt.Sprintf("Loop guard halted the run: the agent sent the same reply %d times in a row (%s).", v.Count, quoted)
	case v.Action == Warn:
		return fmt.Sprintf("Loop guard: your last %d replies were empty. Give your answer, or call a tool to continue.", v.Count)
	}
	return fmt.Sprintf("Loop guard halted the run: the agent's last %d replies were empty.", v.Count)
}

// describeCall names a call: `read_file with arguments {"path":"a.go"}`, or `ls with no
// arguments`.
func describeCall(tool, args string) string {
	if args == "" {
		return tool + " with no arguments"
	}
	return tool + " with arguments " + clip(args, maxArgsRunes)
}

// clip collapses every run of white space in s to one space, trims it, and cuts it to at most
// limit runes, the last of which is then "…".
func clip(s string, limit int) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
