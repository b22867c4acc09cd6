package stall

import (
	"testing"
)

func TestClassifyLexical(t *testing.T) {
	type want struct {
		stalled  bool
		why      string
		decisive bool
	}
	stall := func(why string) want { return want{stalled: true, why: why} }
	quiet := func(why string) want { return want{why: why} }
	final := func(why string) want { return want{why: why, decisive: true} }

	tests := []struct {
		name string
		text string
		mode Mode // zero: both modes must agree
		want want
	}{
		// First-person intent.
		{"let me", "The renderer drops the title. Let me look at how the header renders.", "", stall(whyIntent)},
		{"now I'll", "Lint is clean. Now I'll run the tests.", "", stall(whyIntent)},
		{"I will", "I will add the migration for the new column.", "", stall(whyIntent)},
		{"I'm going to", "I'm going to rewrite the parser with a state machine.", "", stall(whyIntent)},
		{"we'll", "We'll wire the handler into the router next.", "", stall(whyIntent)},
		{"let's", "That settles the design. Let's proceed with this implementation.", "", stall(whyIntent)},
		{"next I'll with adverbs", "Next, I'll quickly go ahead and update the changelog.", "", stall(whyIntent)},
		{"curly apostrophe", "Good catch. I’ll fix the off-by-one in the loop.", "", stall(whyIntent)},
		{"I'll now provide", "The checks pass. I'll now provide the remaining edits.", "", stall(whyIntent)},
		{"temporal clause not on the user", "Once the build is clean, I'll mark the task done.", "", stall(whyIntent)},
		{"intent after summary", "Both files compile. Let me verify with the integration tests.", "", stall(whyIntent)},
		{"let me try", "That import path is wrong. Let me try the vendored copy instead.", "", stall(whyIntent)},

		// Obligation.
		{"I need to", "The mock is stale. I need to regenerate it.", "", stall(whyObligation)},
		{"I should", "The old helper is unused now. I should delete it.", "", stall(whyObligation)},
		{"I'll need to", "I'll need to update every caller of the old API.", "", stall(whyObligation)},
		{"subjectless need to", "Need to add the flag to the CLI as well.", "", stall(whyObligation)},
		{"we'll need to is advice", "We'll need to revisit this once the API stabilises.", "", quiet(whyNoSignal)},
		{"we need to is not a promise", "To support Postgres, we need to add a second adapter.", "", quiet(whyNoSignal)},
		{"I need to see is a request", "I need to see the full stack trace to go further.", "", final(whyBlocked)},
		{"I should have", "I should have caught that earlier.", "", quiet(whyNoSignal)},
		{"I should note", "I should note that the cache is per process.", "", quiet(whyNoSignal)},

		// Progressive narration.
		{"proceeding with", "Design approved. Proceeding with the implementation.", "", stall(whyProgressive)},
		{"moving on to", "Moving on to the second endpoint.", "", stall(whyProgressive)},
		{"bare continuing", "Continuing.", "", stall(whyProgressive)},
		{"gerund with now", "Running the full test suite now.", "", stall(whyProgressive)},
		{"gerund with ellipsis", "Checking the deployment logs...", "", stall(whyProgressive)},
		{"first person progressive now", "I'm now regenerating the fixtures.", "", stall(whyProgressive)},
		{"first person onward", "I am proceeding with the refactor.", "", stall(whyProgressive)},
		{"gerund with finite verb is a statement", "Running the tests now shows no failures, which is what we wanted and is done.", "", quiet(whyNoSignal)},
		{"gerund subject", "Testing is complete.", "", quiet(whyNoSignal)},
		{"moving forward is not narration", "Moving forward, use the v2 client everywhere.", "", quiet(whyNoSignal)},
		{"stative progressive", "I'm seeing the same error now.", "", quiet(whyNoSignal)},
		{"nothing", "Nothing else changed.", "", quiet(whyNoSignal)},

		// The unfulfilled colon.
		{"trailing colon", "Now let me check the tests:", "", stall(whyColon)},
		{"search replace block announced", "Here is the SEARCH/REPLACE block:", "", stall(whyColon)},
		{"bold colon", "**Try this setting:**", "", stall(whyColon)},
		{"please with colon still dangles", "Please run the following command:", "", stall(whyColon)},
		{"colon then code delivered", "Here is the patch:\n```diff\n-a\n+b\n```", "", quiet(whyCode)},
		{"colon then list delivered", "The changes:\n- renamed the flag\n- added a test", "", quiet(whyNoSignal)},
		{"colon mid sentence", "Note: the cache is per process.", "", quiet(whyNoSignal)},

		// Completion summaries and answers.
		{"past tense summary", "I updated the parser and added three tests. All 42 tests pass.", "", quiet(whyNoSignal)},
		{"answer", "The leak comes from the ticker that is never stopped.", "", quiet(whyNoSignal)},
		{"future about the code", "This change will make the retry resend the body.", "", quiet(whyNoSignal)},
		{"relative clause", "These are the tests that I will keep.", "", quiet(whyNoSignal)},
		{"empty", "", "", quiet(whyEmpty)},
		{"only code", "```\nmake\n```", "", quiet(whyEmpty)},
		{"emoji only", "👍", "", quiet(whyNoSignal)},
		{"intent inside inline code", "The log line reads `I'll retry later` and is harmless.", "", quiet(whyNoSignal)},
		{"intent inside quotes", `The bot replied "Let me check that for you" and stopped.`, "", quiet(whyNoSignal)},

		// Questions.
		{"question interactive", "Want me to pick up the next issue?", Interactive, final(whyQuestion)},
		{"question autonomous no go-on verb", "Want me to pick up the next issue?", Autonomous, final(whyQuestion)},
		{"shall I proceed interactive", "The plan is ready. Shall I proceed?", Interactive, final(whyQuestion)},
		{"shall I proceed autonomous", "The plan is ready. Shall I proceed?", Autonomous, stall(whyPermission)},
		{"would you like me to continue", "Would you like me to continue with the remaining files?", Autonomous, stall(whyPermission)},
		{"ready to move on", "Are you ready to move on to the next phase?", Autonomous, stall(whyPermission)},
		{"go ahead", "Should I go ahead and merge?", Autonomous, stall(whyPermission)},
		{"start", "Shall I start on the migration?", Autonomous, stall(whyPermission)},
		{"question with emoji", "Should I continue? 🙂", Autonomous, stall(whyPermission)},
		{"choice is not permission", "Which option do you prefer?", Autonomous, final(whyQuestion)},
		{"permission then hand-back autonomous", "Shall I proceed with the rollout? Let me know.", Autonomous, stall(whyPermission)},
		{"permission then hand-back interactive", "Shall I proceed with the rollout? Let me know.", Interactive, final(whyHandBack)},
		{"cjk question", "要继续吗？", Interactive, final(whyQuestion)},

		// Hand-backs and blocked reports.
		{"let me know", "The fix is in. Let me know if anything else breaks.", "", final(whyHandBack)},
		{"please add", "Please add config.yaml to the chat so I can edit it.", "", final(whyHandBack)},
		{"once you share", "Once you share the schema, I'll write the migration.", "", final(whyHandBack)},
		{"tell me and I'll", "Tell me which option you prefer, and I'll apply it.", "", final(whyHandBack)},
		{"you can", "You can now run make deploy.", "", final(whyHandBack)},
		{"I can't", "I can't reach the staging database from here.", "", final(whyBlocked)},
		{"unable", "I'm unable to proceed without the API key.", "", final(whyBlocked)},
		{"need you", "I need you to approve the firewall change.", "", final(whyBlocked)},

		// Parking and deferral.
		{"wait for CI", "Pushed the branch. I'll wait for the CI run to finish.", "", final(whyParked)},
		{"job wakes me", "Ending the turn here rather than polling; the job wakes me when it exits.", "", final(whyParked)},
		{"notify me", "The watcher will notify me when the deploy lands.", "", final(whyParked)},
		{"once it completes", "Once the benchmark completes, I'll compare the numbers.", "", final(whyParked)},
		{"end my turn", "Nothing more to do, so I'll end my turn.", "", final(whyParked)},
		{"later", "I'll tidy the fixtures later.", "", quiet(whyDeferred)},
		{"check back", "I'll check back on the rollout.", "", quiet(whyDeferred)},
		{"follow up", "I'll follow up with a benchmark.", "", quiet(whyDeferred)},

		{"going forward", "Going forward, I'll run the linter before every commit.", "", quiet(whyDeferred)},
		{"from now on", "From now on I will keep the fixtures small.", "", quiet(whyDeferred)},
		{"we'll see", "We'll see how it behaves under load.", "", quiet(whyNoSignal)},
		{"let me see looks", "Let me see what the handler returns.", "", stall(whyIntent)},
		{"yield back", "I'll yield back to you now.", "", quiet(whyDeferred)},
		{"emoticon is not a colon", "Let me know if that works :)", "", final(whyHandBack)},

		// Declined, conditional, non-actions.
		{"won't", "Since nothing changed, I won't push a new commit.", "", quiet(whyNegated)},
		{"will not", "I will not modify the generated files.", "", quiet(whyNegated)},
		{"if hypothetical", "If the build fails again, I'll bisect the last three commits.", "", quiet(whyConditional)},
		{"I'll stop here", "That covers the requested scope. I'll stop here.", "", quiet(whyNoSignal)},
		{"I'll leave it", "I'll leave the flag off by default.", "", quiet(whyNoSignal)},
		{"be happy to", "I'll be happy to help with the next step.", "", quiet(whyNoSignal)},
		{"let you know", "I'll let the team decide on naming.", "", quiet(whyNoSignal)},
		{"I can offer", "I can also add a benchmark for the hot path.", "", quiet(whyNoSignal)},
		{"I would", "I would keep the old endpoint for one release.", "", quiet(whyNoSignal)},
		{"let's wrap up", "Let's wrap up here.", "", quiet(whyNoSignal)},
	}
	for _, tt := range tests {
		modes := []Mode{Interactive, Autonomous}
		if tt.mode != "" {
			modes = []Mode{tt.mode}
		}
		for _, mode := range modes {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				got := ClassifyLexical(tt.text, mode)
				if got.Stalled != tt.want.stalled || got.Why != tt.want.why || got.Decisive != tt.want.decisive {
					t.Errorf("ClassifyLexical(%q, %s) = {Stalled:%t Why:%q Decisive:%t}, want {Stalled:%t Why:%q Decisive:%t}",
						tt.text, mode, got.Stalled, got.Why, got.Decisive, tt.want.stalled, tt.want.why, tt.want.decisive)
				}
				if got.Sentence != DanglingSentence(tt.text) {
					t.Errorf("Sentence = %q, want the dangling sentence %q", got.Sentence, DanglingSentence(tt.text))
				}
			})
		}
	}
	// The zero Mode reads as Interactive.
	if ClassifyLexical("Shall I proceed?", "") != ClassifyLexical("Shall I proceed?", Interactive) {
		t.Error("the zero Mode must behave as Interactive")
	}
	if ClassifyLexical("Shall I proceed?", "AUTONOMOUS").Stalled {
		t.Error("an unrecognised Mode must behave as Interactive")
	}
}
