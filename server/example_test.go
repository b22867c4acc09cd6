package server_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/server"
)

func Example() {
	srv, err := server.New(server.Options{}) // no event log: decisions are not recorded
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv) // on loopback, so no token is needed
	defer ts.Close()

	turn := `{"session":"s1","message":{"text":"I updated the loader. Let me check the tests."}}`
	resp, err := http.Post(ts.URL+"/v1/decide", "application/json", strings.NewReader(turn))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var d stopgate.Decision
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, d.Verdict, d.Check, resp.Header.Get(server.HeaderRecorded))
	// Output: 200 continue stall off
}
