package stall

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stopgate/stopgate/internal/dataset"
)

// endingFiles are the labelled turn endings TestQuality measures: spotter-dev.jsonl ships in the
// repository (testdata/endings, texts from MIT-licensed transcripts); real-dev.jsonl quotes
// repositories without a licence, so it is read from the evaluation data set, by `make eval`
// (the file is skipped without it).
var endingFiles = []struct {
	name string
	path func(tb testing.TB) string
}{
	{"spotter-dev.jsonl", func(tb testing.TB) string { return dataset.Sample(tb, "endings/spotter-dev.jsonl") }},
	{"real-dev.jsonl", func(tb testing.TB) string { return dataset.Shared(tb, "endings/real-dev.jsonl") }},
}

var showMisses = flag.Bool("misses", false, "TestQuality: log every misclassified ending")

// ending is one labelled record of the endings data.
type ending struct {
	ID            string `json:"id"`
	Text          string `json:"text"`
	Label         string `json:"label"` // stall, ok or ambiguous
	Kind          string `json:"kind"`
	ModeSensitive bool   `json:"mode_sensitive"`
}

func readEndings(t *testing.T, path string) []ending {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the labelled endings must be present at %s: %v", path, err)
	}
	defer f.Close()
	var out []ending
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for line := 1; sc.Scan(); line++ {
		var e ending
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no records", path)
	}
	return out
}

// confusion counts a classifier's verdicts against labels.
type confusion struct {
	stallCaught, stallMissed int // label stall: nudged, not nudged
	okNudged, okQuiet        int // label ok: nudged, not nudged
}

func (c confusion) recall() float64 {
	return ratio(c.stallCaught, c.stallCaught+c.stallMissed)
}

func (c confusion) falseNudgeRate() float64 {
	return ratio(c.okNudged, c.okNudged+c.okQuiet)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (c confusion) String() string {
	return fmt.Sprintf("                 nudged  quiet\n"+
		"  label stall    %5d  %5d   caught %5.1f%%\n"+
		"  label ok       %5d  %5d   nudged %5.1f%%",
		c.stallCaught, c.stallMissed, 100*c.recall(),
		c.okNudged, c.okQuiet, 100*c.falseNudgeRate())
}

// TestQuality measures ClassifyLexical on the labelled real turn endings, in both modes, and
// fails when, for either file, more than 3% of legitimate endings would be nudged or fewer
// than 60% of stalls are caught. Ambiguous records are left out. A mode-sensitive record (a
// permission-ask) is a legitimate end in interactive mode and a stall in autonomous mode.
// Run with -v to see the matrices, and with -misses to list every miss.
func TestQuality(t *testing.T) {
	const (
		maxFalseNudge = 0.03
		minRecall     = 0.60
	)
	for _, ef := range endingFiles {
		t.Run(ef.name, func(t *testing.T) { quality(t, ef.name, readEndings(t, ef.path(t)), maxFalseNudge, minRecall) })
	}
}

// quality measures ClassifyLexical on records of file, in both modes, against the bounds.
func quality(t *testing.T, file string, records []ending, maxFalseNudge, minRecall float64) {
	for _, mode := range []Mode{Interactive, Autonomous} {
		var c confusion
		for _, e := range records {
			var stall bool
			switch e.Label {
			case "stall":
				stall = true
			case "ok":
				stall = e.ModeSensitive && mode == Autonomous
			case "ambiguous":
				continue
			default:
				t.Fatalf("%s %s: unknown label %q", file, e.ID, e.Label)
			}
			v := ClassifyLexical(e.Text, mode)
			switch {
			case stall && v.Stalled:
				c.stallCaught++
			case stall:
				c.stallMissed++
			case v.Stalled:
				c.okNudged++
			default:
				c.okQuiet++
			}
			if *showMisses && stall != v.Stalled {
				t.Logf("MISS %s %s label=%s mode=%s why=%q\n    %q", file, e.ID, e.Label, mode, v.Why, v.Sentence)
			}
		}
		t.Logf("%s, %s mode:\n%v", file, mode, c)
		if r := c.falseNudgeRate(); r > maxFalseNudge {
			t.Errorf("%s, %s mode: %.1f%% of ok endings nudged, want at most %.0f%%", file, mode, 100*r, 100*maxFalseNudge)
		}
		if r := c.recall(); r < minRecall {
			t.Errorf("%s, %s mode: %.1f%% of stalls caught, want at least %.0f%%", file, mode, 100*r, 100*minRecall)
		}
	}
}
