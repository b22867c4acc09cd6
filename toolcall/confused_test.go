package toolcall

import (
	"strings"
	"testing"
)

// TestLooksConfused ports the origin's cases: the seed version's, and the later two-branch
// variant's (the dictionary-of-tasks meta-talk and the live contract-as-request deflections).
func TestLooksConfused(t *testing.T) {
	song := strings.TrimSuffix(strings.Repeat("Line of the song for my dear daughter.\n", 12), "\n")
	tests := []struct {
		name    string
		content string
		tools   []string
		want    bool
	}{
		// Seed version.
		{"live WhatsApp incident", "I'm sorry, but the provided example call to suggest_followups is incomplete and not fully defined. Could you please provide more context or a specific action you'd like me to suggest?", nil, true},
		{"contract nouns without a tool name", "I am not sure what to do with the provided tool arguments — please provide more context.", nil, true},
		{"given schema", "I can't fulfill this request — the given schema is invalid.", nil, true},
		{"merely mentions a tool", "Sure — I can call suggest_followups once the song is written.", nil, false},
		{"apologises about something else", "Sorry for the delay — here is your song about Kashvi.", nil, false},
		{"a real deliverable", song, nil, false},
		{"empty", "", nil, false},
		{"whitespace", "   ", nil, false},
		{"custom tool list", "I'm sorry, but the provided example call to execute is incomplete.", []string{"execute"}, true},

		// Later variant, branch A.
		{"dictionary of tasks", "I'm sorry, but the provided information seems to be a dictionary of tasks, actions, and their parameters rather than a structured API response. I can't directly interpret or provide a structured response about the tasks you're asking about.", nil, true},
		{"given information, directly interpret", "Sorry, but the given information doesn't look like a valid request. I cannot directly interpret this format.", nil, true},

		// Later variant, branch B: the live deflections.
		{"deflection 1", "Sure, I can help you with suggestions and followups. Please provide me with more details so I can assist you better.", nil, true},
		{"deflection 2", "Sure, I can help you with suggesting followups. Please provide some details or a specific query you'd like me to suggest.", nil, true},
		{"deflection 3", "I'm ready to help! Could you please provide more details about the tasks or actions you'd like to perform or discuss?", nil, true},
		{"deflection 4", "Sure, I can help you with your suggestions. What do you need help with?", nil, true},
		{"deflection 5", "Sure! Please provide the details for the action you want me to suggest, and I'll assist you with the suggestions.", nil, true},
		{"division answer with follow-ups", "Division with a remainder: 20101 ÷ 2 = 10050 remainder 1. Follow-ups: more practice sums.", nil, false},
		{"follow-ups list", "Follow-ups: 1. More examples 2. Harder sums", nil, false},
		{"a suggestion", "I suggest starting with counters, then move to long division.", nil, false},
		{"long deliverable with the vocabulary", strings.Repeat("Teach it with counters and place value. ", 20) + "I suggest practice next.", nil, false},
		{"empty, branch B", "  \n ", nil, false},

		// Edges.
		{"offer without an ask", "I can help with suggestions.", nil, false},
		{"empty tool name is ignored", "Sorry, that is invalid.", []string{""}, false},
		{"tool names match as written", "Sorry, Execute is invalid.", []string{"execute"}, false},
		{"a list of tasks and actions, confused", "Sorry, I see tasks and actions but no request.", nil, true},
		{"branch B needs the marker's vocabulary", "Sure, I can help you execute it. What should I run?", []string{"execute"}, false},
		{"follow up with a space", "I'm happy to help with follow ups. Please share the topic.", nil, true},
		{"just over the bound", "Sorry, the provided example call is incomplete. " + strings.Repeat("x", 400), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LooksConfused(tc.content, tc.tools); got != tc.want {
				t.Errorf("LooksConfused(%q, %q) = %t, want %t", tc.content, tc.tools, got, tc.want)
			}
		})
	}
}
