// Package xdg is stopgate's one XDG base-directory helper: where its state and configuration
// live by default. As the XDG Base Directory Specification says, a relative path in an XDG_*
// variable is invalid and ignored, so the default under $HOME applies.
package xdg

import (
	"os"
	"path/filepath"
)

// StateHome returns the base directory of state files: $XDG_STATE_HOME when it is set to an
// absolute path, else $HOME/.local/state; "" when neither helps. getenv reads the
// environment; nil means os.Getenv.
func StateHome(getenv func(string) string) string {
	return base(getenv, "XDG_STATE_HOME", ".local", "state")
}

// ConfigHome returns the base directory of configuration files: $XDG_CONFIG_HOME when it is
// set to an absolute path, else $HOME/.config; "" when neither helps. getenv reads the
// environment; nil means os.Getenv.
func ConfigHome(getenv func(string) string) string {
	return base(getenv, "XDG_CONFIG_HOME", ".config")
}

// base returns the absolute directory in the variable key, else $HOME joined with under.
func base(getenv func(string) string, key string, under ...string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv(key); d != "" && filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(append([]string{h}, under...)...)
	}
	return ""
}
