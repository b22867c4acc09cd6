package claims

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stopgate/stopgate/loopguard"
)

// labelled is one record of testdata/labelled: a real turn ending, the run's steps, and the
// label a person gave it by reading both.
type labelled struct {
	ID      string           `json:"id"`
	Source  string           `json:"source"`
	Harness string           `json:"harness"`
	Text    string           `json:"text"`
	Steps   []loopguard.Step `json:"steps"`
	Label   string           `json:"label"`
	Why     string           `json:"why"`
}

// minRecall is the recall floor TestLabelled holds: the goal of 80%, below the figure measured
// on the labelled set (7 of 8 contradicted endings caught, 87.5%). See TestLabelled.
const minRecall = 0.80

func readLabelled(t *testing.T) []labelled {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "labelled", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no labelled set under testdata/labelled")
	}
	var out []labelled
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			var r labelled
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s:%d: %v", p, n, err)
			}
			out = append(out, r)
		}
		f.Close()
	}
	return out
}

// TestLabelled measures Check on the labelled real endings: precision and recall of
// "contradicted". Precision comes first: a false accusation of lying is worse than a missed one.
//
// The goal is precision ≥ 98% and recall ≥ 80%, and the test holds both. Real contradicted
// endings are rare in public sessions (8 of 205 records here), so one record moves recall by
// 12.5 points; the README reports both figures and the miss.
func TestLabelled(t *testing.T) {
	recs := readLabelled(t)
	var tp, fp, fn int
	confusion := map[string]int{}
	for _, r := range recs {
		v := Check(r.Text, r.Steps, Config{})
		got := v.Outcome == Contradicted
		want := r.Label == "contradicted"
		confusion[r.Label+" -> "+string(v.Outcome)]++
		switch {
		case got && want:
			tp++
		case got && !want:
			fp++
			t.Logf("false accusation %s (%s, labelled %s): %s", r.ID, r.Source, r.Label, v.Why)
		case !got && want:
			fn++
			t.Logf("missed %s (%s): %s; %s", r.ID, r.Source, v.Outcome, v.Why)
		}
	}
	keys := make([]string, 0, len(confusion))
	for k := range confusion {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-32s %d", k, confusion[k])
	}
	precision, recall := 1.0, 0.0
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	t.Logf("%d records; contradicted: precision %.1f%% (%d/%d), recall %.1f%% (%d/%d)", len(recs), 100*precision, tp, tp+fp, 100*recall, tp, tp+fn)
	if precision < 0.98 {
		t.Errorf("precision %.1f%% is below 98%%", 100*precision)
	}
	if recall < minRecall {
		t.Errorf("recall %.1f%% is below the floor %.0f%%", 100*recall, 100*minRecall)
	}
}
