package xdg

import "testing"

func TestHomes(t *testing.T) {
	tests := []struct {
		name          string
		env           map[string]string
		state, config string
	}{
		{"the variables", map[string]string{"XDG_STATE_HOME": "/x/state", "XDG_CONFIG_HOME": "/x/config/", "HOME": "/h"}, "/x/state", "/x/config"},
		{"HOME only", map[string]string{"HOME": "/h"}, "/h/.local/state", "/h/.config"},
		{"relative variables are ignored", map[string]string{"XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": "./cfg", "HOME": "/h"}, "/h/.local/state", "/h/.config"},
		{"only relative variables", map[string]string{"XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": "cfg"}, "", ""},
		{"nothing", map[string]string{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := StateHome(getenv); got != tt.state {
				t.Errorf("StateHome = %q, want %q", got, tt.state)
			}
			if got := ConfigHome(getenv); got != tt.config {
				t.Errorf("ConfigHome = %q, want %q", got, tt.config)
			}
		})
	}
}
