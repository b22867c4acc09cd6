package termination_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/internal/wire"
)

// corpusRecord is one hand-labelled record of testdata/corpus: an input exactly as `stopgate
// classify error` or `classify stop` takes it, and the category a person wrote by reading it
// (null for "no stop recorded").
type corpusRecord struct {
	ID       string          `json:"id"`
	Family   string          `json:"family"`
	API      string          `json:"api"`
	Input    json.RawMessage `json:"input"`
	Category *string         `json:"category"`
	Why      string          `json:"why"`
	Source   string          `json:"source"`
}

func readCorpus(t *testing.T, pattern string) []corpusRecord {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", pattern))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusRecord
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var r corpusRecord
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			if r.ID == "" || r.Source == "" || len(r.Input) == 0 {
				t.Fatalf("%s:%d: a record needs an id, an input and a source", name, n)
			}
			out = append(out, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// tally counts right answers per key and the confusion pairs.
type tally struct {
	right, total map[string]int
	confused     map[string][]string // "want -> got" to the ids
}

func newTally() *tally {
	return &tally{right: map[string]int{}, total: map[string]int{}, confused: map[string][]string{}}
}

func (t *tally) add(key string, ok bool) {
	t.total[key]++
	if ok {
		t.right[key]++
	}
}

func (t *tally) report(tb testing.TB, title string) {
	keys := make([]string, 0, len(t.total))
	for k := range t.total {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", title)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-28s %4d/%-4d %6.1f%%\n", k, t.right[k], t.total[k], 100*float64(t.right[k])/float64(t.total[k]))
	}
	tb.Log(b.String())
}

func (t *tally) reportConfusion(tb testing.TB) {
	pairs := make([]string, 0, len(t.confused))
	for k := range t.confused {
		pairs = append(pairs, k)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if a, b := len(t.confused[pairs[i]]), len(t.confused[pairs[j]]); a != b {
			return a > b
		}
		return pairs[i] < pairs[j]
	})
	var b strings.Builder
	b.WriteString("confusion pairs (labelled -> classified):\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "  %-44s %3d  %s\n", p, len(t.confused[p]), strings.Join(t.confused[p], " "))
	}
	tb.Log(b.String())
}

func category(c *string) string {
	if c == nil {
		return "null"
	}
	return *c
}

// TestCorpusErrors classifies every record of testdata/corpus/errors*.jsonl as `stopgate
// classify error` does and fails below 95% right. go test -v -run Corpus ./termination/ prints
// the accuracy per category and per family, and the confusion pairs.
func TestCorpusErrors(t *testing.T) {
	recs := readCorpus(t, "errors*.jsonl")
	if len(recs) == 0 {
		t.Fatal("no error records in testdata/corpus")
	}
	byCat, byFamily, all := newTally(), newTally(), newTally()
	for _, r := range recs {
		var in wire.ErrorInput
		if err := wire.Decode(bytes.NewReader(r.Input), &in); err != nil {
			t.Fatalf("%s: input: %v", r.ID, err)
		}
		got, err := wire.ClassifyError(in)
		if err != nil {
			t.Fatalf("%s: classify error: %v", r.ID, err)
		}
		want, have := category(r.Category), category((*string)(got.Category))
		ok := want == have
		byCat.add(want, ok)
		byFamily.add(r.Family, ok)
		all.add("all", ok)
		if !ok {
			all.confused[want+" -> "+have] = append(all.confused[want+" -> "+have], r.ID)
		}
	}
	acc := float64(all.right["all"]) / float64(all.total["all"])
	t.Logf("errors: %d/%d right (%.1f%%), %d families", all.right["all"], all.total["all"], 100*acc, len(byFamily.total))
	if testing.Verbose() {
		byCat.report(t, "errors per category")
		byFamily.report(t, "errors per family")
		all.reportConfusion(t)
	}
	if acc < 0.95 {
		all.reportConfusion(t)
		t.Errorf("error corpus accuracy %.1f%%, below 95%%", 100*acc)
	}
}

// TestCorpusStops classifies every record of testdata/corpus/stops.jsonl as `stopgate classify
// stop` does and fails on any miss.
func TestCorpusStops(t *testing.T) {
	recs := readCorpus(t, "stops*.jsonl")
	if len(recs) == 0 {
		t.Fatal("no stop records in testdata/corpus")
	}
	byCat, byAPI, all := newTally(), newTally(), newTally()
	for _, r := range recs {
		var in wire.StopInput
		if err := wire.Decode(bytes.NewReader(r.Input), &in); err != nil {
			t.Fatalf("%s: input: %v", r.ID, err)
		}
		got := wire.ClassifyStop(in)
		want, have := category(r.Category), category((*string)(got.Category))
		ok := want == have
		byCat.add(want, ok)
		byAPI.add(r.API, ok)
		all.add("all", ok)
		if !ok {
			all.confused[want+" -> "+have] = append(all.confused[want+" -> "+have], r.ID)
			t.Errorf("%s (%s): classified %s, labelled %s: %s", r.ID, r.API, have, want, r.Why)
		}
	}
	t.Logf("stops: %d/%d right, %d APIs", all.right["all"], all.total["all"], len(byAPI.total))
	if testing.Verbose() {
		byCat.report(t, "stops per category")
		byAPI.report(t, "stops per API")
		all.reportConfusion(t)
	}
}
