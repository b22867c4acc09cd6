package hooksfile

import (
	"bytes"
	"testing"
)

func TestIndentUnit(t *testing.T) {
	for in, want := range map[string]string{
		"{\n    \"a\": 1\n}": "    ",
		"{\n\t\"a\": 1\n}":   "\t",
		"{ \r\n  \"a\": 1}":  "  ",
		`{"a": 1}`:           "  ",
		"{\n\"a\": 1\n}":     "  ",
		"":                   "  ",
	} {
		if got := IndentUnit([]byte(in)); got != want {
			t.Errorf("IndentUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestObjectRoundTrip(t *testing.T) {
	in := `{"b": [1, 2], "a": {"x": "<&>"}, "b": "dup"}`
	obj, err := DecodeObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	obj.write(&b, "  ", 0)
	want := "{\n  \"b\": [1, 2],\n  \"a\": {\"x\": \"<&>\"},\n  \"b\": \"dup\"\n}"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if obj.index("b") != 2 {
		t.Errorf("index(b) = %d, want the last, 2", obj.index("b"))
	}
}
