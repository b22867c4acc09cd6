package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/stall"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	p := write(t, `
mode = "autonomous"
max_consecutive = 4
classifier = "openai:gpt-5-mini"
classifier_timeout = "5s"
[budgets]
stall = 1
processes = 0
[checks]
todos = false
stall = true
`)
	f, err := Load(p, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Supervisor()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != stall.Autonomous || cfg.MaxConsecutive != 4 {
		t.Errorf("mode %q, max %d", cfg.Mode, cfg.MaxConsecutive)
	}
	if cfg.Caps[stopgate.CheckStall] != 1 || cfg.Caps[stopgate.CheckProcesses] != 0 || len(cfg.Caps) != 2 {
		t.Errorf("caps %v", cfg.Caps)
	}
	if !cfg.Off[stopgate.CheckTodos] || cfg.Off[stopgate.CheckStall] {
		t.Errorf("off %v", cfg.Off)
	}
	if d, err := f.Timeout(); err != nil || d.Seconds() != 5 {
		t.Errorf("timeout %v, %v", d, err)
	}
}

// TestClaims: the [claims] table turns on the claims check's second rule, and the rule's own
// budget is set under [budgets] as claims_unverified; both are off or default when absent.
func TestClaims(t *testing.T) {
	tests := []struct {
		name, text string
		require    bool
		caps       map[stopgate.Check]int
	}{
		{"absent", "", false, nil},
		{"on, with budgets", "[budgets]\nclaims = 2\nclaims_unverified = 0\n[claims]\nrequire_evidence = true\n", true,
			map[stopgate.Check]int{stopgate.CheckClaims: 2, stopgate.BudgetUnverifiedClaim: 0}},
		{"off", "[claims]\nrequire_evidence = false\n", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(write(t, tt.text), false)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := f.Supervisor()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Claims.RequireEvidence != tt.require || len(cfg.Caps) != len(tt.caps) {
				t.Errorf("require_evidence %v, caps %v; want %v, %v", cfg.Claims.RequireEvidence, cfg.Caps, tt.require, tt.caps)
			}
			for c, n := range tt.caps {
				if got, ok := cfg.Caps[c]; !ok || got != n {
					t.Errorf("cap %s = %d (set %v), want %d", c, got, ok, n)
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "colour = \"red\"\n", "unknown key(s) colour"},
		{"bad mode", "mode = \"sleepy\"\n", `mode "sleepy"`},
		{"bad check", "[budgets]\nstalls = 2\n", `"stalls" is not a check`},
		{"negative budget", "[budgets]\nstall = -1\n", "must not be negative"},
		{"bad timeout", "classifier_timeout = \"soon\"\n", "classifier_timeout"},
		{"not toml", "mode = \n", "config"},
		{"unknown claims key", "[claims]\nrequire = true\n", "unknown key(s) claims.require"},
		{"claims setting not a boolean", "[claims]\nrequire_evidence = \"yes\"\n", "require_evidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(write(t, tt.text), false)
			if err == nil {
				_, err = f.Supervisor()
			}
			if err == nil {
				_, err = f.Timeout()
			}
			if err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml"), false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a named missing file: %v", err)
	}
	if f, err := Load(filepath.Join(t.TempDir(), "missing.toml"), true); err != nil || f.Mode != "" {
		t.Errorf("the default missing file: %v", err)
	}
}

func TestFlags(t *testing.T) {
	b := BudgetFlag{}
	if err := b.Set("stall=3"); err != nil || b["stall"] != 3 {
		t.Errorf("%v %v", b, err)
	}
	if err := b.Set("claims_unverified=2"); err != nil || b["claims_unverified"] != 2 {
		t.Errorf("%v %v", b, err)
	}
	for _, bad := range []string{"stall", "stall=x", "nope=1", "stall=-1"} {
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	var l ListFlag
	if err := l.Set("stall,todos"); err != nil || len(l) != 2 {
		t.Errorf("%v %v", l, err)
	}
	if err := l.Set("nope"); err == nil {
		t.Error("unknown check accepted")
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}
	if got := DefaultPath(func(k string) string { return env[k] }); got != "/x/stopgate/config.toml" {
		t.Errorf("got %q", got)
	}
	delete(env, "XDG_CONFIG_HOME")
	if got := DefaultPath(func(k string) string { return env[k] }); got != "/h/.config/stopgate/config.toml" {
		t.Errorf("got %q", got)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
