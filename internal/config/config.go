// Package config reads stopgate's configuration file and flags into a stopgate.Config.
//
// The file is TOML. TOML was chosen over YAML because its values are explicitly typed (no
// string silently read as a boolean or a number), it has comments, one well-kept module reads
// it with no dependencies of its own, and the harnesses stopgate plugs into use it too (Codex's
// config.toml). An example, with every key:
//
//	mode = "autonomous"          # or "interactive" (the default)
//	max_consecutive = 3          # continuations in a row before the agent may stop regardless
//	classifier = "openai:gpt-5-mini"   # model stall classifier; absent = off
//	classifier_timeout = "15s"
//	record = true                # write decisions to the event log
//	store = "/path/to/stopgate.db"     # or a postgres:// URL
//	shadow = true                # hooks record would-blocks and never block
//
//	[budgets]                    # continuations per check per run
//	stall = 2
//	todos = 2
//	processes = 2
//	subagents = 3
//	livelock = 1
//	stop_metadata = 1
//	error = 2
//	claims = 1
//	claims_unverified = 1        # the claims check's second rule, when require_evidence is on
//
//	[checks]                     # false turns a check off
//	stall = true
//
//	[claims]
//	require_evidence = false     # true also blocks a verification claim no run after the last
//	                             # edit supports (off by default: many honest runs verify nothing)
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/internal/xdg"
	"github.com/stopgate/stopgate/stall"
)

// ErrInvalid is returned (wrapped) for a configuration value that names nothing stopgate knows
// or is out of range.
var ErrInvalid = errors.New("invalid configuration")

// File is the configuration file's content. Every field is optional.
type File struct {
	Mode              string          `toml:"mode"`
	MaxConsecutive    int             `toml:"max_consecutive"`
	Classifier        string          `toml:"classifier"`
	ClassifierTimeout string          `toml:"classifier_timeout"`
	Budgets           map[string]int  `toml:"budgets"`
	Checks            map[string]bool `toml:"checks"`
	Record            *bool           `toml:"record"`
	Store             string          `toml:"store"`
	// Shadow runs the stop hooks in shadow mode: every decision is made and recorded, a
	// continuation as a would-block (verdict "shadow"), and the agent is always let stop.
	Shadow bool       `toml:"shadow"`
	Claims ClaimsFile `toml:"claims"`
}

// ClaimsFile is the [claims] table: the claims check's settings.
type ClaimsFile struct {
	// RequireEvidence turns on the claims check's second rule: a verification claim with no
	// matching run after the last edit blocks too, under its own budget (claims_unverified).
	RequireEvidence bool `toml:"require_evidence"`
}

// DefaultPath returns where the configuration file is looked for when none is named:
// $XDG_CONFIG_HOME/stopgate/config.toml, else ~/.config/stopgate/config.toml (a relative
// XDG_CONFIG_HOME is ignored); "" when neither variable helps. getenv reads the environment.
func DefaultPath(getenv func(string) string) string {
	if d := xdg.ConfigHome(getenv); d != "" {
		return filepath.Join(d, "stopgate", "config.toml")
	}
	return ""
}

// Load reads the file at path. A missing file is an empty configuration when optional is true
// (the default path), and an error otherwise (a path the user named).
func Load(path string, optional bool) (File, error) {
	var f File
	if path == "" {
		return f, nil
	}
	md, err := toml.DecodeFile(path, &f)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return File{}, nil
		}
		return File{}, fmt.Errorf("config %s: %w", path, err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		return File{}, fmt.Errorf("config %s: unknown key(s) %s: %w", path, strings.Join(names, ", "), ErrInvalid)
	}
	return f, nil
}

// Supervisor turns the file into a stopgate.Config (without the classifier, which needs a
// model client the caller builds from Classifier).
func (f File) Supervisor() (stopgate.Config, error) {
	var cfg stopgate.Config
	switch stall.Mode(f.Mode) {
	case "", stall.Interactive, stall.Autonomous:
		cfg.Mode = stall.Mode(f.Mode)
	default:
		return cfg, fmt.Errorf("mode %q: want interactive or autonomous: %w", f.Mode, ErrInvalid)
	}
	if f.MaxConsecutive < 0 {
		return cfg, fmt.Errorf("max_consecutive %d: must not be negative: %w", f.MaxConsecutive, ErrInvalid)
	}
	cfg.MaxConsecutive = f.MaxConsecutive
	cfg.Claims.RequireEvidence = f.Claims.RequireEvidence
	for name, n := range f.Budgets {
		c, err := parseBudget(name)
		if err != nil {
			return cfg, fmt.Errorf("budgets: %w", err)
		}
		if n < 0 {
			return cfg, fmt.Errorf("budgets.%s = %d: must not be negative: %w", name, n, ErrInvalid)
		}
		if cfg.Caps == nil {
			cfg.Caps = map[stopgate.Check]int{}
		}
		cfg.Caps[c] = n
	}
	for name, on := range f.Checks {
		c, err := ParseCheck(name)
		if err != nil {
			return cfg, fmt.Errorf("checks: %w", err)
		}
		if !on {
			if cfg.Off == nil {
				cfg.Off = map[stopgate.Check]bool{}
			}
			cfg.Off[c] = true
		}
	}
	return cfg, nil
}

// Timeout returns the classifier timeout; zero when unset.
func (f File) Timeout() (time.Duration, error) {
	if f.ClassifierTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(f.ClassifierTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("classifier_timeout %q: want a positive duration such as 15s: %w", f.ClassifierTimeout, ErrInvalid)
	}
	return d, nil
}

// ParseCheck returns the check named s.
func ParseCheck(s string) (stopgate.Check, error) {
	c := stopgate.Check(s)
	if slices.Contains(stopgate.Checks(), c) {
		return c, nil
	}
	names := make([]string, 0, len(stopgate.Checks()))
	for _, c := range stopgate.Checks() {
		names = append(names, string(c))
	}
	return "", fmt.Errorf("%q is not a check (want one of %s): %w", s, strings.Join(names, ", "), ErrInvalid)
}

// parseBudget returns the budget named s: a check, or the claims check's second rule
// (claims_unverified), which has a budget of its own.
func parseBudget(s string) (stopgate.Check, error) {
	if c := stopgate.Check(s); c == stopgate.BudgetUnverifiedClaim {
		return c, nil
	}
	c, err := ParseCheck(s)
	if err != nil {
		return "", fmt.Errorf("%w (or %s)", err, stopgate.BudgetUnverifiedClaim)
	}
	return c, nil
}

// BudgetFlag is a flag.Value for repeated -budget check=N flags.
type BudgetFlag map[string]int

// String implements flag.Value.
func (b BudgetFlag) String() string {
	var parts []string
	for k, v := range b {
		parts = append(parts, k+"="+strconv.Itoa(v))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// Set implements flag.Value.
func (b BudgetFlag) Set(s string) error {
	name, num, ok := strings.Cut(s, "=")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 {
		return fmt.Errorf("%q: want CHECK=N with N >= 0", s)
	}
	if _, err := parseBudget(name); err != nil {
		return err
	}
	b[name] = n
	return nil
}

// ListFlag is a flag.Value for a repeated flag naming checks.
type ListFlag []string

// String implements flag.Value.
func (l *ListFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *ListFlag) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		if _, err := ParseCheck(strings.TrimSpace(name)); err != nil {
			return err
		}
		*l = append(*l, strings.TrimSpace(name))
	}
	return nil
}
