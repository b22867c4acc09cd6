package wire

import "github.com/stopgate/stopgate"

// CheckTurn reports what makes t unfit to decide on, naming the field: a mode that is neither
// interactive nor autonomous. The supervisor reads an unknown mode as interactive, which would
// hide a caller's typo; an operation that takes a Turn from outside rejects it instead.
func CheckTurn(t stopgate.Turn) error {
	return checkMode(t.Mode)
}
