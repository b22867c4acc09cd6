package termination

import (
	"crypto/tls"
	"io/fs"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
)

// This file is the error text reader: what the prose arms of [Classify], [IsContextOverflow] and
// [ContextOverflowArms] see of a Go error. It is one reader for all three, so the arms a caller
// is told about are the arms the classifier used.
//
// The text is, for each error in the chain:
//   - an *APIError: its Name, Type, Code and Message, then what the body reader found in its Body
//     (see body.go), never the raw JSON body, because a body can carry text nobody vouches for
//     (Groq's failed_generation is the model's own output);
//   - a *reasonError: nothing, it is transparent;
//   - any other error: its Error() text, unless an ancestor's Error() text already contains it
//     (the usual fmt.Errorf("…: %w") wrapper repeats its cause) or its parent is a standard
//     library wrapper that always quotes it (*url.Error, *net.OpError, *os.SyscallError, …).
//
// Each fragment is lower-cased (ASCII only: every needle is ASCII) and fragments are joined with
// " \n ", so a multi-word needle cannot match across two fragments.

const (
	// maxChain bounds the errors of one chain the reader visits, so a cyclic Unwrap or an
	// enormous errors.Join tree cannot spin. Real chains are a handful deep.
	maxChain = 32
	// maxText bounds the text the prose arms read, in bytes.
	maxText = 64 << 10
	// fragmentSep joins the fragments of the text.
	fragmentSep = " \n "
)

// errChain is an error's wrapping tree flattened in pre-order (the order errors.Is and
// errors.As use), cut at maxChain errors. Typed nil pointers are left out: they carry nothing
// and calling their methods can panic.
type errChain struct {
	n      int
	nodes  [maxChain]error
	parent [maxChain]int8 // index of the wrapping error, -1 for the root
}

// walk fills c from err. It calls Unwrap methods and nothing else.
func (c *errChain) walk(err error) {
	type pending struct {
		err    error
		parent int8
	}
	var stack [maxChain]pending
	stack[0] = pending{err, -1}
	sp := 1
	for sp > 0 && c.n < maxChain {
		sp--
		top := stack[sp]
		if isNilError(top.err) {
			continue
		}
		i := c.n
		c.nodes[i], c.parent[i] = top.err, top.parent
		c.n++
		switch u := top.err.(type) {
		case interface{ Unwrap() error }:
			if sp < maxChain {
				stack[sp] = pending{u.Unwrap(), int8(i)}
				sp++
			}
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			// Keep the first children when the stack cannot hold them all; push in reverse so
			// they are visited in order.
			k := min(len(errs), maxChain-sp)
			for j := k - 1; j >= 0; j-- {
				stack[sp] = pending{errs[j], int8(i)}
				sp++
			}
		}
	}
}

// committed returns the reason carried on the chain: the first (outermost) reasonError whose
// reason names a category. A reason parked without a category is not a classification and is
// passed over, as the origin does.
func (c *errChain) committed() (Reason, bool) {
	for i := range c.n {
		if re, ok := c.nodes[i].(*reasonError); ok && re.reason.Category != "" {
			return re.reason, true
		}
	}
	return Reason{}, false
}

// under reports whether an ancestor of node i satisfies is.
func (c *errChain) under(i int, is func(error) bool) bool {
	for p := c.parent[i]; p >= 0; p = c.parent[p] {
		if is(c.nodes[p]) {
			return true
		}
	}
	return false
}

// isNilError reports whether err is nil or a typed nil pointer (or other nil-able kind).
func isNilError(err error) bool {
	if err == nil {
		return true
	}
	switch v := reflect.ValueOf(err); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// appendFragment appends one fragment of the text to b, lower-cased, after the separator. The
// text is built append-style, like strconv's Append functions, so it can live in a buffer on
// the caller's stack.
func appendFragment(b []byte, s string) []byte {
	if s == "" || len(b) >= maxText {
		return b
	}
	if len(b) > 0 {
		b = append(b, fragmentSep...)
	}
	if room := maxText - len(b); len(s) > room {
		s = s[:room]
	}
	return appendLower(b, s)
}

// appendChain appends the text of every error of c, as the file comment describes. bodies
// holds what the body reader found for each *APIError of the chain, in chain order.
func appendChain(b []byte, c *errChain, bodies []bodyFields) []byte {
	var raw [maxChain]string // Error() texts, for the ancestor containment check
	api := 0
	for i := range c.n {
		switch e := c.nodes[i].(type) {
		case *reasonError:
			continue
		case *APIError:
			b = appendFragment(b, e.Name)
			b = appendFragment(b, e.Type)
			b = appendFragment(b, e.Code)
			if !ancestorSays(c, &raw, i, e.Message) {
				b = appendFragment(b, e.Message)
			}
			if api < len(bodies) {
				b = appendBody(b, e, &bodies[api])
			}
			api++
		default:
			if c.underQuoting(i) {
				continue // its text is in its parent's, verbatim
			}
			s := errorText(c.nodes[i])
			raw[i] = s
			if !ancestorSays(c, &raw, i, s) {
				b = appendFragment(b, s)
			}
		}
	}
	return b
}

// underQuoting reports whether the nearest ancestor of node i (reasonErrors aside) is a standard
// library wrapper whose Error text always contains its cause's Error text verbatim. Reading the
// cause again would only cost its formatting (a *url.Error over a *net.OpError over an
// *os.SyscallError formats the same sentence three times).
func (c *errChain) underQuoting(i int) bool {
	for p := c.parent[i]; p >= 0; p = c.parent[p] {
		switch c.nodes[p].(type) {
		case *reasonError:
			continue
		case *url.Error, *net.OpError, *os.SyscallError, *fs.PathError, *tls.CertificateVerificationError:
			return true
		}
		return false
	}
	return false
}

// errorText returns e.Error(), or "" when that panics. An Error method is someone else's code,
// and the commonest way it fails is formatting a typed nil it wraps (errors.Join calls Error on
// every child); losing that one fragment is better than losing the whole text.
func errorText(e error) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return e.Error()
}

// ancestorSays reports whether an ancestor of node i already has s in its Error() text.
func ancestorSays(c *errChain, raw *[maxChain]string, i int, s string) bool {
	if s == "" {
		return true
	}
	for p := c.parent[i]; p >= 0; p = c.parent[p] {
		if raw[p] != "" && strings.Contains(raw[p], s) {
			return true
		}
	}
	return false
}

// appendBody appends what the body reader found in e.Body. A body that is not JSON is read as
// prose, unless it is the Message already.
func appendBody(b []byte, e *APIError, f *bodyFields) []byte {
	if !f.json {
		if s := strings.TrimSpace(e.Body); s != e.Message {
			b = appendFragment(b, s)
		}
		return b
	}
	if m := f.message(); m != e.Message {
		b = appendFragment(b, m)
	}
	for _, s := range f.codes() {
		if s != e.Type && s != e.Code {
			b = appendFragment(b, s)
		}
	}
	b = appendFragment(b, f.quota1)
	b = appendFragment(b, f.quota2)
	b = appendFragment(b, f.quota3)
	b = appendFragment(b, f.upMessage)
	return appendFragment(b, f.rawText)
}
