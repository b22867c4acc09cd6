package doctorkit

import "testing"

func TestVersionAndLess(t *testing.T) {
	for _, tt := range []struct {
		out, want string
	}{
		{"2.1.332 (Claude Code)\n", "2.1.332"},
		{"codex-cli 0.169.0\n", "0.169.0"},
		{"0.61.0\n", "0.61.0"},
		{"no version here", ""},
	} {
		if got := Version([]byte(tt.out)); got != tt.want {
			t.Errorf("Version(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
	for _, tt := range []struct {
		a, b string
		less bool
	}{
		{"2.0.10", "2.1.78", true},
		{"2.1.78", "2.1.78", false},
		{"2.1.332", "2.1.78", false},
		{"0.9.0", "0.61.0", true},
		{"1.0.0", "0.61.0", false},
	} {
		if got := Less(tt.a, tt.b); got != tt.less {
			t.Errorf("Less(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.less)
		}
	}
}

func TestCommandBinary(t *testing.T) {
	for _, tt := range []struct{ command, want string }{
		{"/usr/local/bin/stopgate hook claude-code -- --shadow=true", "/usr/local/bin/stopgate"},
		{"'/path with space/stopgate' hook codex", "/path with space/stopgate"},
		{"STOPGATE_X=1 stopgate hook gemini-cli", "stopgate"},
		{"", ""},
		{"'unterminated", ""},
	} {
		if got := CommandBinary(tt.command); got != tt.want {
			t.Errorf("CommandBinary(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}
