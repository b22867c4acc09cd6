package toolcall

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// corpusRecord is one real tool-calling failure body with the verdict a person reading it
// wrote down: its kind, and whether anything in it is an answer to deliver.
type corpusRecord struct {
	id, source, provider, file string
	status                     int
	tools                      string // sent, none or unknown
	kind                       Failure
	salvage                    bool
	body                       string
}

// readCorpus reads testdata/corpus/*.txt: records that open with "=== id", then "key: value"
// lines, then "--- body" and the body verbatim up to the next record.
func readCorpus(t testing.TB) []corpusRecord {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var recs []corpusRecord
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		var cur *corpusRecord
		var body []string
		inBody := false
		flush := func() {
			if cur != nil {
				cur.body = strings.Join(body, "\n")
				recs = append(recs, *cur)
			}
		}
		for line := 1; sc.Scan(); line++ {
			l := sc.Text()
			if id, ok := strings.CutPrefix(l, "=== "); ok {
				flush()
				cur, body, inBody = &corpusRecord{id: id, file: filepath.Base(f)}, nil, false
				continue
			}
			if cur == nil {
				t.Fatalf("%s:%d: text before the first record", f, line)
			}
			if inBody {
				body = append(body, l)
				continue
			}
			if l == "--- body" {
				inBody = true
				continue
			}
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				t.Fatalf("%s:%d: not a key: value line: %q", f, line, l)
			}
			switch k {
			case "source":
				cur.source = v
			case "provider":
				cur.provider = v
			case "status":
				if cur.status, err = strconv.Atoi(v); err != nil {
					t.Fatalf("%s:%d: status: %v", f, line, err)
				}
			case "tools":
				cur.tools = v
			case "kind":
				cur.kind = Failure(v)
			case "salvage":
				cur.salvage = v == "yes"
				if v != "yes" && v != "no" {
					t.Fatalf("%s:%d: salvage %q", f, line, v)
				}
			case "note":
			default:
				t.Fatalf("%s:%d: unknown key %q", f, line, k)
			}
		}
		flush()
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, r := range recs {
		switch {
		case seen[r.id]:
			t.Errorf("%s: id %s twice", r.file, r.id)
		case !strings.HasPrefix(r.source, "https://"):
			t.Errorf("%s: %s has no source URL", r.file, r.id)
		case r.provider == "" || strings.TrimSpace(r.body) == "":
			t.Errorf("%s: %s lacks a provider or a body", r.file, r.id)
		case !slicesContains(Failures(), r.kind):
			t.Errorf("%s: %s: kind %q is not a Failure", r.file, r.id, r.kind)
		case r.tools != "sent" && r.tools != "none" && r.tools != "unknown":
			t.Errorf("%s: %s: tools %q", r.file, r.id, r.tools)
		}
		seen[r.id] = true
	}
	return recs
}

func slicesContains(fs []Failure, f Failure) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// TestCorpus holds ClassifyFailure and Salvage to the corpus's hand-written verdicts: at least
// 95% of the kinds right and no wrong salvage at all (a missed salvage is the lesser failure
// and is only counted).
func TestCorpus(t *testing.T) {
	recs := readCorpus(t)
	providers := map[string]bool{}
	var kindsRight, wrongSalvage, missedSalvage, salvaged int
	for _, r := range recs {
		providers[r.provider] = true
		if got := ClassifyFailure(r.status, r.body); got == r.kind {
			kindsRight++
		} else {
			t.Logf("kind %s: %s, want %s (%s)", r.id, got, r.kind, r.source)
		}
		s := Salvage(r.status, r.body, &SalvageOptions{NoTools: r.tools == "none"})
		switch {
		case s.OK && !r.salvage:
			wrongSalvage++
			t.Errorf("wrong salvage %s (%s): delivered %q", r.id, r.source, s.Content)
		case !s.OK && r.salvage:
			missedSalvage++
			t.Logf("missed salvage %s: %s", r.id, s.Why)
		case s.OK:
			salvaged++
		}
	}
	var names []string
	for p := range providers {
		names = append(names, p)
	}
	sort.Strings(names)
	n := len(recs)
	pct := 100 * float64(kindsRight) / float64(n)
	t.Logf("corpus: %d bodies from %d providers (%s); kinds right %d (%.1f%%); salvaged %d, wrong salvage %d, missed salvage %d",
		n, len(names), strings.Join(names, ", "), kindsRight, pct, salvaged, wrongSalvage, missedSalvage)
	if n < 100 || len(names) < 15 {
		t.Errorf("the corpus has %d bodies from %d providers; want at least 100 from 15", n, len(names))
	}
	if pct < 95 {
		t.Errorf("kinds right for %.1f%% of the corpus, want at least 95%%", pct)
	}
	if wrongSalvage > 0 {
		t.Errorf("%d wrong salvages", wrongSalvage)
	}
	_ = fmt.Sprint
}
