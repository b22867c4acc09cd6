package store

import (
	"strings"
	"testing"
)

// The backends' migrations must be the same list, so that one version number means one
// schema whichever database holds it.
func TestMigrationsMatchAcrossBackends(t *testing.T) {
	sq, pg := migrations(sqliteDialect.name), migrations(postgresDialect.name)
	if len(sq) == 0 || len(sq) != len(pg) {
		t.Fatalf("sqlite has %d migrations, postgres %d", len(sq), len(pg))
	}
	for i := range sq {
		if sq[i].version != pg[i].version || sq[i].name != pg[i].name {
			t.Errorf("migration %d: sqlite %d_%s, postgres %d_%s", i, sq[i].version, sq[i].name, pg[i].version, pg[i].name)
		}
		if strings.TrimSpace(sq[i].sql) == "" || strings.TrimSpace(pg[i].sql) == "" {
			t.Errorf("migration %d is empty", sq[i].version)
		}
	}
	if SchemaVersion() != len(sq) {
		t.Errorf("SchemaVersion() = %d, want %d", SchemaVersion(), len(sq))
	}
}
