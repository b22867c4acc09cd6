package store

import (
	"errors"
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct {
		dsn, want string
		password  bool
	}{
		{"postgres://u:secret@db/events", "postgres://u:xxxxx@db/events", true},
		{"postgresql://u:s%40cret@db:5432/events?sslmode=disable", "postgresql://u:xxxxx@db:5432/events?sslmode=disable", true},
		{"postgres://u@db/events", "postgres://u@db/events", false},
		{"postgres://db/events?password=secret&sslmode=disable", "postgres://db/events?password=xxxxx&sslmode=disable", true},
		// URLs that do not parse: everything before the last @ goes.
		{"postgres://u:secret@db:port/events", "postgres://xxxxx@db:port/events", true},
		{"postgres://u:sec ret@db/events", "postgres://xxxxx@db/events", true},
		{"postgres://u:se%zzcret@db/events", "postgres://xxxxx@db/events", true},
		{"postgres://u:p@ss:w@rd@db/events", "postgres://u:xxxxx@db/events", true},
		{"host=db user=u password=secret dbname=events", "host=db user=u password=xxxxx dbname=events", true},
		{"host=db password='se cret'", "host=db password=xxxxx", true},
		{"/var/lib/stopgate/events.db", "/var/lib/stopgate/events.db", false},
		{"events.db", "events.db", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got := RedactDSN(tt.dsn)
		if got != tt.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
		if strings.Contains(got, "secret") || strings.Contains(got, "cret") && tt.password {
			t.Errorf("RedactDSN(%q) = %q shows the password", tt.dsn, got)
		}
		if HasPassword(tt.dsn) != tt.password {
			t.Errorf("HasPassword(%q) = %v, want %v", tt.dsn, !tt.password, tt.password)
		}
	}
}

// TestScrub checks that an error quoting a DSN's password (as a driver's parse error may) has it
// hidden, and still unwraps to the original.
func TestScrub(t *testing.T) {
	base := errors.New("cannot parse `postgres://u:secret@db:port/events`: invalid port")
	err := scrub(base, "postgres://u:secret@db:port/events")
	if strings.Contains(err.Error(), "secret") || !errors.Is(err, base) {
		t.Errorf("scrub = %q (unwraps: %v)", err, errors.Is(err, base))
	}
	if scrub(nil, "x") != nil {
		t.Error("scrub(nil) != nil")
	}
}

// FuzzRedactDSN checks that no password HasPassword finds in a URL's user information survives
// RedactDSN.
func FuzzRedactDSN(f *testing.F) {
	for _, s := range []string{"postgres://u:secret@db/events", "postgres://u:secret@db:port/x", "host=db password=secret", "x.db"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		got := RedactDSN(dsn)
		if !HasPassword(dsn) {
			return
		}
		for _, s := range secrets(dsn) {
			if len(s) >= 4 && !strings.Contains(redacted, s) && strings.Contains(got, s) && !strings.Contains(strings.Replace(dsn, s, "", 1), s) {
				t.Errorf("RedactDSN(%q) = %q still holds %q", dsn, got, s)
			}
		}
	})
}
