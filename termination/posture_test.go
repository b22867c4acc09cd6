package termination

import "testing"

// TestPostureTable pins every row of the posture table, as the seed and research section 2
// state it.
func TestPostureTable(t *testing.T) {
	rows := []struct {
		c      Category
		asIs   bool
		after  bool
		remedy Remedy
	}{
		{Completed, false, false, ""},
		{EmptyResponse, true, true, ChangeModel},
		{StreamCut, true, true, BackOff},
		{ContentRefusal, false, true, ChangeRequest},
		{OutputTruncated, false, true, ChangeRequest},
		{ContextOverflow, false, true, ReduceContext},
		{RateLimited, false, true, BackOff},
		{AuthFailed, false, true, FixCredentials},
		{InvalidRequest, false, false, ""},
		{ProviderError, true, true, BackOff},
		{NetworkError, true, true, BackOff},
		{Timeout, true, true, BackOff},
		{Cancelled, false, false, ""},
		{ApprovalStop, false, false, ""},
		{ToolErrorBudget, false, true, ChangeRequest},
		{ToolLoopGuard, false, true, ChangeRequest},
		{InterruptDrainGuard, false, true, ChangeRequest},
		{ToolError, false, true, ChangeRequest},
		{Suspended, false, true, Resume},
		{RecursionLimit, false, true, ChangeRequest},
		{Abandoned, false, false, ""},
		{Unknown, false, false, ""},
	}
	if len(rows) != 22 || len(Categories()) != 22 {
		t.Fatalf("the vocabulary has %d categories and the test %d rows; both must be 22", len(Categories()), len(rows))
	}
	for i, row := range rows {
		if Categories()[i] != row.c {
			t.Errorf("Categories()[%d] = %q, want %q", i, Categories()[i], row.c)
		}
		got := PostureOf(row.c)
		want := Posture{RetryableAsIs: row.asIs, RetryableAfterRemedy: row.after, Remedy: row.remedy}
		if got != want {
			t.Errorf("PostureOf(%s) = %+v, want %+v", row.c, got, want)
		}
	}
}

func TestPostureInvariants(t *testing.T) {
	for _, c := range Categories() {
		p := PostureOf(c)
		if (p.Remedy != "") != p.RetryableAfterRemedy {
			t.Errorf("%s: remedy %q present must match retryable_after_remedy %t", c, p.Remedy, p.RetryableAfterRemedy)
		}
		if p.Remedy == ReduceContext && c != ContextOverflow {
			t.Errorf("%s names reduce-context; only context_overflow may", c)
		}
	}
	if PostureOf("no-such-category") != PostureOf(Unknown) {
		t.Error("an unrecognised category must get the unknown posture")
	}
}

func TestVocabulariesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Sites() {
		if seen[string(s)] {
			t.Errorf("site %q listed twice", s)
		}
		seen[string(s)] = true
	}
	if len(Remedies()) != 6 {
		t.Errorf("%d remedies, want 6", len(Remedies()))
	}
	for _, r := range Remedies() {
		found := false
		for _, c := range Categories() {
			if PostureOf(c).Remedy == r {
				found = true
			}
		}
		if !found {
			t.Errorf("remedy %q is named by no category", r)
		}
	}
}
