package stopgate

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoIO: the supervisor and the stall package import no I/O; the model clients that speak
// HTTP or run a CLI live in package model, which neither imports.
func TestNoIO(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("TestNoIO needs the go command on PATH (go list -deps)")
	}
	for _, pkg := range []string{".", "./stall", "./gate", "./model/llm"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net/http" || dep == "os/exec" || dep == "github.com/stopgate/stopgate/model" {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
