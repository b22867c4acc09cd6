package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/store/storetest"
)

// openSQLite opens a new SQLite store in the test's temporary directory.
func openSQLite(t *testing.T) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "events.db"), nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, openSQLite)
}
