package stall

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"only space", " \n\t\n", nil},
		{"plain", "The build passed. All tests are green.", []string{"The build passed.", "All tests are green."}},
		{"exclamation and question", "Done! Want me to push? Sure.", []string{"Done!", "Want me to push?", "Sure."}},
		{"interrobang", "It worked?! Great.", []string{"It worked?!", "Great."}},
		{"trailing colon", "All green. Now let me check the tests:", []string{"All green.", "Now let me check the tests:"}},
		{"colon line before list", "The changes:\n- one\n- two", []string{"The changes:", "one", "two"}},
		{"file name mid sentence", "I edited main.go and go.mod today.", []string{"I edited main.go and go.mod today."}},
		{"file name ends sentence", "I edited main.go. Then I ran the tests.", []string{"I edited main.go.", "Then I ran the tests."}},
		{"versions", "Upgraded to v1.2.3 and go1.26 here. Next is v2.", []string{"Upgraded to v1.2.3 and go1.26 here.", "Next is v2."}},
		{"decimal", "Pi is 3.14 roughly. Coverage rose to 87.5%.", []string{"Pi is 3.14 roughly.", "Coverage rose to 87.5%."}},
		{"url", "See https://go.dev/doc/effective_go.html for details. Then retry.", []string{"See https://go.dev/doc/effective_go.html for details.", "Then retry."}},
		{"url with query", "Open https://example.com/search?q=a.b&x=1 now. Done.", []string{"Open https://example.com/search?q=a.b&x=1 now.", "Done."}},
		{"e.g. and i.e.", "Use a tool, e.g. gofmt, i.e. the formatter. Done.", []string{"Use a tool, e.g. gofmt, i.e. the formatter.", "Done."}},
		{"vs.", "Compare map vs. slice. Then pick.", []string{"Compare map vs. slice.", "Then pick."}},
		{"Dr.", "Ask Dr. Smith about it. Thanks.", []string{"Ask Dr. Smith about it.", "Thanks."}},
		{"etc. mid sentence", "Fix lint, vet, etc. before pushing.", []string{"Fix lint, vet, etc. before pushing."}},
		{"etc. ends sentence", "Fix lint, vet, etc. Then push.", []string{"Fix lint, vet, etc.", "Then push."}},
		{"ellipsis continues", "Let me think... the cache is stale.", []string{"Let me think... the cache is stale."}},
		{"ellipsis ends", "Still compiling... Let me wait.", []string{"Still compiling...", "Let me wait."}},
		{"unicode ellipsis", "Checking the logs… Found it.", []string{"Checking the logs…", "Found it."}},
		{"trailing ellipsis", "Checking the logs…", []string{"Checking the logs…"}},
		{"quoted exclamation", `It finds the "AI!" comment and removes it. Done.`, []string{`It finds the "AI!" comment and removes it.`, "Done."}},
		{"closing quote and paren", `He said "stop." Then (quietly.) We left.`, []string{`He said "stop."`, "Then (quietly.)", "We left."}},
		{"emphasis after stop", "**All tests pass.** Now let me commit.", []string{"**All tests pass.**", "Now let me commit."}},
		{"inline code kept whole", "Run `go test ./... -run X. Y` first. Then push.", []string{"Run `go test ./... -run X. Y` first.", "Then push."}},
		{"double backtick code", "Use ``a ` b. c`` here. Ok.", []string{"Use ``a ` b. c`` here.", "Ok."}},
		{"unclosed backtick", "A stray ` tick. Next one.", []string{"A stray ` tick.", "Next one."}},
		{"bullets", "Summary:\n- Added tests.\n* Fixed lint\n+ Pushed", []string{"Summary:", "Added tests.", "Fixed lint", "Pushed"}},
		{"numbered list", "Plan:\n1. Read it.\n2) Fix it. Test it.\n10. Ship", []string{"Plan:", "Read it.", "Fix it.", "Test it.", "Ship"}},
		{"heading", "## Summary\nAll done.", []string{"Summary", "All done."}},
		{"heading closing hashes", "### Next steps ###\nNone.", []string{"Next steps", "None."}},
		{"hashtag is prose", "#hashtag is not a heading.", []string{"#hashtag is not a heading."}},
		{"empty heading skipped", "##\nText.", []string{"Text."}},
		{"rule skipped", "Above.\n\n---\n\nBelow.", []string{"Above.", "Below."}},
		{"tag lines skipped", "<summary>\nThe work is done.\n</summary>", []string{"The work is done."}},
		{"table", "| a | b |\n|---|:-:|\n| 1 | 2 |", []string{"| a | b |", "| 1 | 2 |"}},
		{"block quote", "> Quoted line.\nReply.", []string{"Quoted line.", "Reply."}},
		{"hard wrap joins", "This sentence wraps\nonto the next line. Done.", []string{"This sentence wraps\nonto the next line.", "Done."}},
		{"line break splits", "All green\nNow let me commit", []string{"All green", "Now let me commit"}},
		{"colon line does not join", "Here is why:\nthe cache was stale.", []string{"Here is why:", "the cache was stale."}},
		{"emoji joins previous", "All tests pass. 🎉\nShipped ✅", []string{"All tests pass. 🎉", "Shipped ✅"}},
		{"emoji alone", "🎉", []string{"🎉"}},
		{"cjk", "测试通过了。现在提交！要推送吗？", []string{"测试通过了。", "现在提交！", "要推送吗？"}},
		{"japanese quotes", "「完了。」次へ。", []string{"「完了。」", "次へ。"}},
		{"hindi and arabic", "काम पूरा हुआ। هل أتابع؟", []string{"काम पूरा हुआ।", "هل أتابع؟"}},
		{"code fence skipped", "Here is the fix:\n```go\nx := 1. // not a sentence.\n```\nDone.", []string{"Here is the fix:", "Done."}},
		{"tilde fence", "Run:\n~~~\nmake test. ok\n~~~", []string{"Run:"}},
		{"longer fence holds shorter", "A.\n````\n```\nB.\n```\n````\nC.", []string{"A.", "C."}},
		{"indented fence in list", "- Step:\n  ```sh\n  go test\n  ```\n- Done.", []string{"Step:", "Done."}},
		{"unclosed fence", "Let me run:\n```sh\ngo test ./...", []string{"Let me run:"}},
		{"inline triple backticks", "Use ```x``` inline. Next.", []string{"Use ```x``` inline.", "Next."}},
		{"crlf", "One.\r\nTwo.\r\n", []string{"One.", "Two."}},
		{"lone cr", "One\rTwo", []string{"One", "Two"}},
		{"single letter option", "I chose option B. It is simpler.", []string{"I chose option B.", "It is simpler."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentences(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
			for _, s := range got {
				if !strings.Contains(tt.text, s) {
					t.Errorf("sentence %q is not a substring of the input", s)
				}
			}
		})
	}
}

func TestLastSentences(t *testing.T) {
	msg := "First. Second. Third. Fourth."
	tests := []struct {
		name string
		text string
		n    int
		want string
	}{
		{"default is three", msg, 0, "Second. Third. Fourth."},
		{"negative is default", msg, -1, "Second. Third. Fourth."},
		{"one", msg, 1, "Fourth."},
		{"more than there are", msg, 10, msg},
		{"exactly all", msg, 4, msg},
		{"more than the ring", strings.Repeat("S. ", 20), 12, strings.TrimSpace(strings.Repeat("S. ", 12))},
		{"empty", "", 3, ""},
		{"keeps the trailing code block whole", "Intro. Here is the patch:\n```diff\n-a. b\n+c. d\n```", 2,
			"Here is the patch:\n```diff\n-a. b\n+c. d\n```"},
		{"keeps list layout", "Done:\n- a\n- b", 2, "- a\n- b"},
		{"trailing tag kept verbatim", "Work done. All pushed.\n</summary>", 1, "All pushed.\n</summary>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LastSentences(tt.text, tt.n); got != tt.want {
				t.Errorf("LastSentences(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
			}
		})
	}
}

func TestDanglingSentence(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"empty", "", ""},
		{"last of prose", "Tests pass. Now let me commit.\n", "Now let me commit."},
		{"trailing colon", "Good. Now let me check the tests:", "Now let me check the tests:"},
		{"never a code block", "Let me run this:\n```sh\nmake test.\n```\n", "Let me run this:"},
		{"only code", "```\ncode.\n```", ""},
		{"list item marker trimmed", "Next:\n- Update the README.", "Update the README."},
		{"heading hashes trimmed", "# Next steps", "Next steps"},
		{"emoji stays with sentence", "Pushed to main. 🚀", "Pushed to main. 🚀"},
		{"after closing tag", "Let me continue.\n</todo>", "Let me continue."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DanglingSentence(tt.text); got != tt.want {
				t.Errorf("DanglingSentence(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestSentencesGolden splits a realistic agent message (prose, lists, a table, fenced and
// inline code, URLs, versions) and compares with testdata/agent_message.golden; run with
// -update to rewrite it.
func TestSentencesGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "agent_message.md"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, s := range Sentences(string(in)) {
		fmt.Fprintf(&b, "%3d | %s\n", i+1, strings.ReplaceAll(s, "\n", "\\n"))
	}
	b.WriteString("--- last 3\n")
	b.WriteString(LastSentences(string(in), 3))
	b.WriteString("\n--- dangling\n")
	b.WriteString(DanglingSentence(string(in)))
	b.WriteString("\n")
	golden(t, filepath.Join("testdata", "agent_message.golden"), b.String())
}

// golden compares got with the golden file at path, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestFinalSentence checks the sentence a reader of a message's end is shown, on the endings
// real agent messages have: a rule, a closing list of changes, a table, a list of options
// after a question, a bold title over a list, a code block.
func TestFinalSentence(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"prose", "I fixed it. Want me to push?", "Want me to push?"},
		{"a closing rule", "All 12 tests pass. Want me to push?\n\n---\n", "Want me to push?"},
		{"a closing list", "Done. Here is what changed:\n\n- `a.go`: new flag\n- `b.go`: removed\n", "Here is what changed:"},
		{"a numbered list after a question", "Which one should I keep?\n\n1. the cache\n2. the index", "Which one should I keep?"},
		{"a wrapped list item", "Summary:\n\n- one item that\n  wraps onto a second line", "Summary:"},
		{"a table", "Results:\n\n| test | ok |\n|---|---|\n| a | yes |", "Results:"},
		{"a bold title over a list", "Both are done.\n\n**Summary**\n- a\n- b", "Both are done."},
		{"a bold sentence is a sentence", "Tests ran.\n\n**All 359 tests pass.**", "**All 359 tests pass.**"},
		{"a quote", "The docs say:\n\n> Use the flag.", "The docs say:"},
		{"a code block", "Run it:\n\n```\ngo test ./...\n```", "Run it:"},
		{"a heading at the end", "Done.\n\n## Next", "Done."},
		{"only a list", "- only\n- a list", "a list"},
		{"only code", "```\nx\n```", ""},
		{"nothing", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FinalSentence(tt.text); got != tt.want {
				t.Errorf("FinalSentence(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}
