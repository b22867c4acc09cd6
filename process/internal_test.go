package process

import "testing"

func TestQuoteArgs(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"echo", "a b"}, "echo 'a b'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"sh", "-c", "echo $HOME; ls *"}, "sh -c 'echo $HOME; ls *'"},
		{[]string{"grep", "-e", "key=value,x@y%z+w:v"}, "grep -e key=value,x@y%z+w:v"},
		{[]string{"echo", "héllo"}, "echo 'héllo'"},
	}
	for _, tt := range tests {
		if got := quoteArgs(tt.args); got != tt.want {
			t.Errorf("quoteArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"a1b2c3d4", true},
		{"Build_1.2-x", true},
		{"0", true},
		{"", false},
		{".", false},
		{"..", false},
		{".hidden", false},
		{"-flag", false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{string(make([]byte, 65)), false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true}, // 64 bytes
	}
	for _, tt := range tests {
		if got := validID(tt.id); got != tt.want {
			t.Errorf("validID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := newID()
		if len(id) != 8 || !validID(id) {
			t.Fatalf("newID() = %q, want 8 hex digits", id)
		}
		for _, c := range id {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				t.Fatalf("newID() = %q, want lowercase hex", id)
			}
		}
		seen[id] = true
	}
	if len(seen) < 99 { // 100 draws from 2^32 collide with probability about 1e-6
		t.Errorf("newID gave %d distinct ids in 100 calls", len(seen))
	}
}
