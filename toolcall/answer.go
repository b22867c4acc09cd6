package toolcall

import (
	"strings"
	"unicode"
)

// A deliverable answer is what [Salvage] may hand the user in place of a turn the provider
// rejected. It is prose addressed to the user, and nothing else:
//
//   - not a tool call in any shape: no JSON object or array (whole or cut off, bare or in a
//     code fence), no call tag or special token (<function=…>, <tool_call>, [TOOL_CALLS],
//     <|…|>), no name-and-arguments pair written out as JSON;
//   - not the model's reasoning or planning leaking out of a parse failure: no <think> block,
//     no harmony analysis channel, and no opening that narrates the model's own next step
//     ("We need to…", "The user wants…", "Let me think…", "I should call…");
//   - not empty, and not punctuation alone.
//
// When unsure it is not an answer: a salvage that is missed only costs a retry on another
// model, one that delivers the wrong thing shows the user a tool call or the model's thoughts.
//
// deliverable reports whether content is one, and when it is not, why.
func deliverable(content string) (bool, string) {
	s := strings.TrimSpace(content)
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false, "no prose in it"
	}
	if body, fenced := unfence(s); fenced && startsJSON(body) || startsJSON(s) {
		return false, "it is JSON, a tool call's shape, not prose"
	}
	lower := strings.ToLower(s)
	for _, tok := range callTokens {
		if strings.Contains(lower, tok) {
			return false, "it holds tool-call syntax (" + tok + ")"
		}
	}
	if namedCall(lower) {
		return false, "it holds a tool's name and arguments written as JSON"
	}
	for _, tok := range reasoningTokens {
		if strings.Contains(lower, tok) {
			return false, "it holds the model's reasoning (" + tok + ")"
		}
	}
	for _, lead := range narrationLeads {
		if strings.HasPrefix(lower, lead) {
			return false, "it narrates the model's own next step (\"" + lead + "…\"), not an answer"
		}
	}
	return true, ""
}

// callTokens are fragments that only a tool call, or a model's call syntax, contains.
var callTokens = []string{
	"<function", "</function", "<tool_call", "</tool_call", "<tool-use", "[tool_calls]", "<|",
	"<invoke", "<parameter", "to=functions",
}

// reasoningTokens mark reasoning that is not meant for the user.
var reasoningTokens = []string{"<think>", "</think>", "<thinking>", "</thinking>", "<reasoning>"}

// narrationLeads open a model's planning rather than an answer to the user: the openings a
// reasoning model writes in its analysis, and that leak when the provider fails to parse it.
var narrationLeads = []string{
	"we need to", "we should", "we must", "we have to", "we'll ", "we will ", "the user wants", "the user is asking",
	"the user asks", "the user asked", "the user said", "the user has", "user wants", "user asks",
	"let me think", "let's think", "i need to call", "i should call", "i will call", "i'll call",
	"i need to use", "i should use the", "now i need to", "okay, so", "ok, so", "alright, so",
	"analysis:", "analysis\n", "analysiswe ", "thinking:", "thought:", "reasoning:", "plan:",
}

// startsJSON reports whether s opens a JSON object or array.
func startsJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

// unfence returns the body of a text that opens with a code fence, and whether it does.
func unfence(s string) (string, bool) {
	if !strings.HasPrefix(s, "```") && !strings.HasPrefix(s, "~~~") {
		return s, false
	}
	_, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return "", true
	}
	return rest, true
}

// namedCall reports a call written out as JSON anywhere in the text: a "name" key followed by
// an "arguments" or "parameters" key.
func namedCall(lower string) bool {
	i := strings.Index(lower, `"name"`)
	if i < 0 {
		return false
	}
	rest := lower[i:]
	return strings.Contains(rest, `"arguments"`) || strings.Contains(rest, `"parameters"`)
}
