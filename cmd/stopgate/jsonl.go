package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/stopgate/stopgate/internal/jsonl"
	"github.com/stopgate/stopgate/internal/wire"
)

// maxLine bounds one input line (16 MiB): a raw provider body can be large, but an unbounded
// line would let one bad input exhaust memory.
const maxLine = 16 << 20

// lineError is what stands in the output for an input line that could not be processed.
type lineError struct {
	Error string `json:"error"`
}

// eachLine reads JSON lines from r, decodes each into a fresh In, and writes handle's answer
// as one JSON line to w, in order. Blank lines are skipped. A line that cannot be decoded, or
// that handle rejects, is answered with {"error": "line N: ..."} and the rest are still
// processed. It returns the number of such lines, and the first I/O error.
func eachLine[In any](r io.Reader, w io.Writer, handle func(in In) (any, error)) (bad int, err error) {
	sc := jsonl.NewScanner(r, maxLine)
	bw := bufio.NewWriter(w)
	defer func() {
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	}()
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for n := 1; sc.Scan(); n++ {
		if sc.TooLong() {
			bad++
			if err := enc.Encode(lineError{Error: fmt.Sprintf("line %d: longer than %d bytes", n, maxLine)}); err != nil {
				return bad, err
			}
			continue
		}
		if trimmed := bytes.TrimSpace(sc.Line()); len(trimmed) > 0 {
			out, herr := decodeAndHandle(trimmed, handle)
			if herr != nil {
				bad++
				out = lineError{Error: fmt.Sprintf("line %d: %v", n, herr)}
			}
			if err := enc.Encode(out); err != nil {
				return bad, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return bad, fmt.Errorf("reading input: %w", err)
	}
	return bad, nil
}

func decodeAndHandle[In any](line []byte, handle func(In) (any, error)) (any, error) {
	var in In
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, wire.DescribeJSONError(err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	return handle(in)
}

// finishLines turns eachLine's result into an exit status: 2 when any line was bad or the
// input could not be read, else 0.
func finishLines(e env, name string, bad int, err error) int {
	if err != nil {
		fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
		return exitUsage
	}
	if bad > 0 {
		fmt.Fprintf(e.stderr, "stopgate %s: %d line(s) could not be processed\n", name, bad)
		return exitUsage
	}
	return 0
}
