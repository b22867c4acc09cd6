package server

import (
	"bytes"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
)

// appendDecision appends d as one line of JSON, byte for byte what encodeLine writes (a
// json.Encoder that does not escape HTML), without encoding/json's reflection: the decision is
// what POST /v1/decide answers and records, and its trail is most of its bytes. The reason and
// the nudge counts keep their own MarshalJSON. When the shapes of the types are not the ones
// it was written for (a field added to Decision, say), decisionShapeOK is false and
// encodeDecision uses encoding/json instead, so a new field is never dropped.
func appendDecision(b []byte, d stopgate.Decision) ([]byte, error) {
	b = append(b, `{"verdict":`...)
	b = appendString(b, string(d.Verdict))
	b = append(b, `,"check":`...)
	b = appendString(b, string(d.Check))
	if d.Message != "" {
		b = append(b, `,"message":`...)
		b = appendString(b, d.Message)
	}
	if d.Reason != nil {
		r, err := d.Reason.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"reason":`...), r...)
	}
	b = append(b, `,"trail":`...)
	if d.Trail == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range d.Trail {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"check":`...)
			b = appendString(b, string(e.Check))
			b = append(b, `,"outcome":`...)
			b = appendString(b, string(e.Outcome))
			b = append(b, `,"why":`...)
			b = appendString(b, e.Why)
			if e.Reason != nil {
				r, err := e.Reason.MarshalJSON()
				if err != nil {
					return nil, err
				}
				b = append(append(b, `,"reason":`...), r...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"nudges":{`...)
	comma := false
	if n := d.Nudges.Consecutive; n != 0 {
		b = strconv.AppendInt(append(b, `"consecutive":`...), int64(n), 10)
		comma = true
	}
	if !reflect.ValueOf(d.Nudges.Given).IsZero() { // omitzero
		g, err := d.Nudges.Given.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if comma {
			b = append(b, ',')
		}
		b = append(append(b, `"given":`...), g...)
	}
	return append(b, "}}\n"...), nil
}

// decisionShape is the fields (name and tag) of the types appendDecision writes, as it was
// written for them.
var decisionShape = map[reflect.Type][]string{
	reflect.TypeFor[stopgate.Decision](): {
		`Verdict json:"verdict"`, `Check json:"check"`, `Message json:"message,omitempty"`,
		`Reason json:"reason,omitempty"`, `RetryAfter json:"-"`, `Trail json:"trail"`, `Nudges json:"nudges"`},
	reflect.TypeFor[stopgate.TrailEntry](): {
		`Check json:"check"`, `Outcome json:"outcome"`, `Why json:"why"`, `Reason json:"reason,omitempty"`},
	reflect.TypeFor[stopgate.Nudges](): {
		`Consecutive json:"consecutive,omitempty"`, `Given json:"given,omitzero"`},
}

// decisionShapeOK reports whether the types still have the shape appendDecision knows: the
// same fields, no MarshalJSON or MarshalText of their own nor of the string types it writes
// as plain strings, and no IsZero on the nudge counts (omitzero would call it).
var decisionShapeOK = func() bool {
	marshalers := []reflect.Type{
		reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }](),
		reflect.TypeFor[interface{ MarshalText() ([]byte, error) }](),
	}
	custom := func(t reflect.Type) bool {
		for _, m := range marshalers {
			if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
				return true
			}
		}
		return false
	}
	for _, t := range []reflect.Type{reflect.TypeFor[stopgate.Verdict](), reflect.TypeFor[stopgate.Check](), reflect.TypeFor[stopgate.Outcome]()} {
		if custom(t) || t.Kind() != reflect.String {
			return false
		}
	}
	budget := reflect.TypeFor[stopgate.Budget]()
	if _, ok := reflect.PointerTo(budget).MethodByName("IsZero"); ok {
		return false
	}
	for t, want := range decisionShape {
		if t.NumField() != len(want) || custom(t) {
			return false
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name+" "+string(f.Tag) != want[i] {
				return false
			}
		}
	}
	return true
}()

// encodeDecision appends d to buf as one line of JSON, as encodeLine would.
func encodeDecision(buf *bytes.Buffer, d stopgate.Decision) error {
	if !decisionShapeOK {
		return encodeLine(buf, d)
	}
	b, err := appendDecision(buf.AvailableBuffer(), d)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it with HTML escaping
// off: quote, backslash and control characters escaped (\b \f \n \r \t by name), invalid
// UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
