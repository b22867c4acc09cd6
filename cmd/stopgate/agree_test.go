package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/internal/dataset"
)

// endingFiles returns the labelled endings (real final messages) the test reads: the
// repository's sample (testdata/endings), and, when `make eval` names it, the evaluation data
// set's as well.
func endingFiles(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dataset.Sample(t, "endings"), "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no labelled endings in testdata/endings")
	}
	if os.Getenv(dataset.EnvShared) != "" {
		more, _ := filepath.Glob(filepath.Join(dataset.Shared(t, "endings"), "*.jsonl"))
		files = append(files, more...)
	}
	return files
}

// TestStallAndDecideAgree: `stopgate stall` and `stopgate decide` answer every labelled ending
// alike, verdict and text, in both modes: there is one stall policy.
func TestStallAndDecideAgree(t *testing.T) {
	files := endingFiles(t)
	var texts []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			var rec struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			texts = append(texts, rec.Text)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A model classifier that answers YES to everything it is asked: the two commands must
	// also agree on when it is consulted.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"YES"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	yes := "openai-compatible:" + srv.URL + "/v1#m"
	for _, run := range []struct{ mode, model string }{{"interactive", ""}, {"autonomous", ""}, {"interactive", yes}} {
		mode := run.mode
		var flags []string
		if run.model != "" {
			flags = []string{"--model", run.model}
		}
		var stallIn, decideIn strings.Builder
		for _, text := range texts {
			s, _ := json.Marshal(map[string]any{"text": text, "mode": mode})
			d, _ := json.Marshal(map[string]any{"mode": mode, "message": map[string]any{"text": text}})
			stallIn.Write(append(s, '\n'))
			decideIn.Write(append(d, '\n'))
		}
		sOut, sErr, code := runCmd(t, stallIn.String(), append([]string{"stall"}, flags...)...)
		if code != 0 {
			t.Fatalf("stall: exit %d: %s", code, sErr)
		}
		dOut, dErr, code := runCmd(t, decideIn.String(), append([]string{"decide"}, flags...)...)
		if code != 0 {
			t.Fatalf("decide: exit %d: %s", code, dErr)
		}
		stalls, decisions := decodeLines(t, sOut), decodeLines(t, dOut)
		if len(stalls) != len(texts) || len(decisions) != len(texts) {
			t.Fatalf("%s: %d stall and %d decide lines for %d endings", mode, len(stalls), len(decisions), len(texts))
		}
		nudged := 0
		for i, text := range texts {
			s, d := stalls[i], decisions[i]
			stalled := s["stalled"] == true
			cont := d["verdict"] == "continue"
			nudge, _ := s["nudge"].(string)
			message, _ := d["message"].(string)
			if stalled != cont || nudge != message {
				t.Errorf("%s, ending %d %q:\nstall:  %v %q\ndecide: %v (%v) %q", mode, i, text, stalled, nudge, d["verdict"], d["check"], message)
			}
			if stalled {
				nudged++
			}
		}
		if nudged == 0 || nudged == len(texts) {
			t.Errorf("%s %s: %d of %d endings nudged: the comparison says nothing", mode, run.model, nudged, len(texts))
		}
		t.Logf("%s (model %t): %d endings, %d nudged by both", mode, run.model != "", len(texts), nudged)
	}
}
