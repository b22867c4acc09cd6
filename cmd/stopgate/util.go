package main

import "fmt"

func usageError(e env, name, msg string) int {
	fmt.Fprintf(e.stderr, "stopgate %s: %s\nRun 'stopgate help %s' for usage.\n", name, msg, name)
	return exitUsage
}
