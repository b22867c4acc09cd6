package fakeserver

import (
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"a", 3, []string{"a"}},
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"äöü", 2, []string{"äö", "ü"}},
	}
	for _, tt := range tests {
		if got := Split(tt.s, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// echo is a minimal fake: it records every request and answers with its sequence number.
type echo struct {
	Server[*Request]
}

func (e *echo) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	req, err := Read(hr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r := &req
	e.Record(r)
	fmt.Fprintf(w, "%d", r.Seq)
}

func TestServerRecordsConcurrentRequests(t *testing.T) {
	e := &echo{}
	e.Start("echo", e)
	defer e.Close()

	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, err := http.Post(e.URL+"/p?q=1", "text/plain", strings.NewReader(fmt.Sprint(i)))
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		})
	}
	wg.Wait()

	reqs := e.Requests()
	if len(reqs) != n {
		t.Fatalf("recorded %d requests, want %d", len(reqs), n)
	}
	for i, r := range reqs {
		if r.Seq != i || r.Method != http.MethodPost || r.Path != "/p" || r.RawQuery != "q=1" || !r.HasBody() {
			t.Errorf("request %d = %+v", i, r)
		}
	}
	odd := e.Select(func(r *Request) bool { return r.Seq%2 == 1 })
	if len(odd) != n/2 {
		t.Errorf("Select kept %d requests, want %d", len(odd), n/2)
	}
	if a, b := e.NextID(), e.NextID(); a != 1 || b != 2 {
		t.Errorf("NextID gave %d, %d, want 1, 2", a, b)
	}
}
