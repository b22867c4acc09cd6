package termination

import "errors"

// reasonError carries a Reason on an error without changing it: Error() is the wrapped error's
// text, and Unwrap returns it, so errors.Is and errors.As see through.
type reasonError struct {
	err    error
	reason Reason
}

func (e *reasonError) Error() string { return e.err.Error() }
func (e *reasonError) Unwrap() error { return e.err }

// Attach returns err carrying r, so a return site reads as one expression:
//
//	return termination.Attach(err, termination.New(site, termination.SourceException, termination.Classify(err)))
//
// The returned error's Error() text is err's, and it unwraps to err. Attaching is first write
// wins: when err's chain already carries a reason, err is returned unchanged, because the inner
// site saw the failure first and is the truer classification. A nil err stays nil.
func Attach(err error, r Reason) error {
	if err == nil {
		return nil
	}
	if _, ok := ReasonOf(err); ok {
		return err
	}
	return &reasonError{err: err, reason: r}
}

// Replace returns err carrying r in place of any reason it already carries. It is the one
// explicit overwrite, for a site that has seen more of the failure than the site that attached
// the first reason (a context overflow seen again after compaction). A nil err stays nil.
func Replace(err error, r Reason) error {
	if err == nil {
		return nil
	}
	return &reasonError{err: err, reason: r}
}

// ReasonOf returns the reason carried anywhere in err's chain: the outermost one that names a
// category, which is the first written unless [Replace] overwrote it. A reason parked without
// a category is not a classification and is passed over.
func ReasonOf(err error) (Reason, bool) {
	if _, ok := errors.AsType[*reasonError](err); !ok {
		return Reason{}, false // the common case, without the probe's allocation
	}
	var found Reason
	ok := errors.Is(err, reasonProbe{&found})
	return found, ok
}

// reasonProbe is the target errors.Is walks the chain with: a *reasonError "is" it when its
// reason names a category, and the probe records that reason.
type reasonProbe struct{ found *Reason }

func (reasonProbe) Error() string { return "termination: reason probe" }

// Is makes a *reasonError with a category match the probe.
func (e *reasonError) Is(target error) bool {
	p, ok := target.(reasonProbe)
	if !ok || e.reason.Category == "" {
		return false
	}
	*p.found = e.reason
	return true
}
