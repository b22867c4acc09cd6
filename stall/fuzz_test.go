package stall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are shapes agents write, and shapes that have broken splitters.
var fuzzSeeds = []string{
	"",
	" ",
	"Let me check the tests:",
	"Done. 🎉",
	"See https://go.dev/doc?x=1. Then v1.2.3 and 3.14...",
	"e.g. i.e. etc. vs. Dr.",
	"```go\nx := 1\n```",
	"```\nunclosed",
	"``a ` b``. `",
	"- [ ] a\n* [x] b\n1. [ ] c",
	"<todo>\n- [ ] open\n</todo>",
	"<todo>- [ ] inline</todo><todo",
	"<TODO x>\n```\n- [ ] fenced\n```\n[] sloppy",
	"# Heading\n## \n###### x ###",
	"| a | b |\n|---|---|",
	"> quote\n>> nested",
	"测试。完成！吗？",
	"…",
	"...!?",
	"\"“quoted”\" 'x'",
	"I'll", "let's", "won't", "I’m now running",
	"Shall I proceed? Let me know.",
	"\xff\xfe invalid utf8 .",
	"a.\r\n\r\nb:",
	"**Try this:**",
	":)",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "agent_message.md")); err == nil {
		f.Add(string(b))
	}
}

func FuzzSentences(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range Sentences(text) {
			if s == "" || s != strings.TrimSpace(s) {
				t.Fatalf("sentence %q is empty or untrimmed", s)
			}
			if !strings.Contains(text, s) {
				t.Fatalf("sentence %q is not in the input", s)
			}
		}
		d := DanglingSentence(text)
		if d != strings.TrimSpace(d) || !strings.Contains(text, d) {
			t.Fatalf("dangling sentence %q is not a trimmed substring of the input", d)
		}
		if f := FinalSentence(text); f != strings.TrimSpace(f) || !strings.Contains(text, f) || (f == "") != (len(Sentences(text)) == 0) {
			t.Fatalf("final sentence %q is not a trimmed substring of the input, or is empty when the input has prose", f)
		}
		for _, n := range []int{0, 1, 5} {
			tail := LastSentences(text, n)
			if tail != strings.TrimSpace(tail) || !strings.HasSuffix(strings.TrimSpace(text), tail) {
				t.Fatalf("LastSentences(%d) = %q is not a trimmed tail of the input", n, tail)
			}
		}
		if d != "" && !strings.Contains(LastSentences(text, 1<<10), d) {
			t.Fatalf("the dangling sentence %q is outside the tail", d)
		}
	})
}

func FuzzOpenTodos(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		todos := OpenTodos(text)
		for _, item := range todos {
			if item == "" || item != strings.TrimSpace(item) || strings.ContainsAny(item, "\n\r") {
				t.Fatalf("item %q is empty, untrimmed or spans lines", item)
			}
			if !strings.Contains(text, item) {
				t.Fatalf("item %q is not in the input", item)
			}
		}
		if HasUncheckedTodo(text) != (len(todos) > 0) {
			t.Fatal("HasUncheckedTodo disagrees with OpenTodos")
		}
	})
}

func FuzzClassifyLexical(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		inter := ClassifyLexical(text, Interactive)
		auto := ClassifyLexical(text, Autonomous)
		for _, v := range []Verdict{inter, auto} {
			if v.Why == "" {
				t.Fatal("verdict without a reason")
			}
			if v.Sentence != DanglingSentence(text) {
				t.Fatalf("Sentence %q is not the dangling sentence %q", v.Sentence, DanglingSentence(text))
			}
			if v.Stalled && v.Decisive {
				t.Fatal("a stall cannot be a decisive end")
			}
		}
		// Autonomous mode only adds stalls: nobody answering never makes an ending safer.
		if inter.Stalled && !auto.Stalled {
			t.Fatalf("stalled in interactive mode but not in autonomous mode: %+v / %+v", inter, auto)
		}
	})
}

func FuzzIsYes(f *testing.F) {
	for _, s := range []string{"YES", "yes.", "**Yes**", "NO", "", "<think>x</think>YES", "<think>", "YESNO", "\"yes\"!", "ｙｅｓ", "yes\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		if isYes(answer) && !strings.Contains(strings.ToLower(answer), "yes") {
			t.Fatalf("YES read from %q", answer)
		}
	})
}
