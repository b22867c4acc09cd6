package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/stopgate/stopgate/store"
)

// code is the server's error vocabulary: what kind of failure an error is, and so which HTTP
// status answers it. statusOf maps it, and errorResponse maps every error to a code, in one
// place each.
type code int

const (
	codeInternal     code = iota // 500: the server's own fault; the client is told nothing more
	codeInvalid                  // 400: the request cannot be read or names nothing the server knows
	codeUnauthorized             // 401: a token is required and was missing or wrong
	codeForbidden                // 403: the request may not be made from where it came
	codeNotFound                 // 404: no such endpoint
	codeMethod                   // 405: the endpoint does not take the method
	codeTooLarge                 // 413: the body is over the limit
	codeMediaType                // 415: the body is not JSON
	codeUnavailable              // 503: the server cannot do it now (no event log, shutting down)
)

func (c code) status() int {
	switch c {
	case codeInvalid:
		return http.StatusBadRequest
	case codeUnauthorized:
		return http.StatusUnauthorized
	case codeForbidden:
		return http.StatusForbidden
	case codeNotFound:
		return http.StatusNotFound
	case codeMethod:
		return http.StatusMethodNotAllowed
	case codeTooLarge:
		return http.StatusRequestEntityTooLarge
	case codeMediaType:
		return http.StatusUnsupportedMediaType
	case codeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// apiError is an error with a code and a message fit for the client.
type apiError struct {
	code code
	msg  string
	err  error // the cause, for errors.Is and the log; may be nil
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.err }

// errorf returns an apiError with code c whose message is fmt.Sprintf(format, args...); a %w
// verb makes the wrapped error its cause.
func errorf(c code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &apiError{code: c, msg: err.Error(), err: errors.Unwrap(err)}
}

// errorResponse returns the HTTP status and the client's message for err. An error that is not
// the client's to know about is a 500 with a fixed message; the caller logs the cause.
func errorResponse(err error) (status int, msg string) {
	if ae, ok := errors.AsType[*apiError](err); ok {
		return ae.code.status(), ae.msg
	}
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return codeTooLarge.status(), fmt.Sprintf("request body larger than %d bytes", mbe.Limit)
	}
	switch {
	case errors.Is(err, store.ErrInvalidFilter):
		return codeInvalid.status(), err.Error()
	case errors.Is(err, store.ErrClosed):
		return codeUnavailable.status(), "the event log is closed: the server is shutting down"
	}
	return codeInternal.status(), "internal error"
}
