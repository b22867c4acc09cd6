package config

import "testing"

// TestDefaultPathXDG checks that a relative XDG_CONFIG_HOME is ignored, as the XDG
// base-directory specification says, and HOME used instead.
func TestDefaultPathXDG(t *testing.T) {
	tests := []struct {
		xdg, home, want string
	}{
		{"/etc/xdg-home", "/home/u", "/etc/xdg-home/stopgate/config.toml"},
		{"relative/dir", "/home/u", "/home/u/.config/stopgate/config.toml"},
		{"./x", "", ""},
		{"", "/home/u", "/home/u/.config/stopgate/config.toml"},
	}
	for _, tt := range tests {
		env := map[string]string{"XDG_CONFIG_HOME": tt.xdg, "HOME": tt.home}
		if got := DefaultPath(func(k string) string { return env[k] }); got != tt.want {
			t.Errorf("XDG_CONFIG_HOME=%q HOME=%q: %q, want %q", tt.xdg, tt.home, got, tt.want)
		}
	}
}
