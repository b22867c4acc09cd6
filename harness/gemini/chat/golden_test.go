package chat

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func marshalGolden(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
