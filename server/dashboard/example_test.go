package dashboard_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/stopgate/stopgate/server/dashboard"
	"github.com/stopgate/stopgate/store"
)

// Serve the dashboard of the default event log on loopback, showing the last 7 days unless
// the page asks otherwise.
func ExampleNew() {
	st, err := store.Open(context.Background(), "", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	mux := http.NewServeMux()
	mux.Handle("/", dashboard.New(st, &dashboard.Options{Title: "stopgate · CI agents", Window: 7 * 24 * time.Hour}))
	if err := http.ListenAndServe("127.0.0.1:8080", mux); err != nil {
		log.Print(err)
	}
}
