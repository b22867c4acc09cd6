package toolcall

import "github.com/stopgate/stopgate/termination"

// errorBody is what an error body says: the fields of [termination.ReadErrorBody], the one
// error-body reader stopgate has, that this package reads.
type errorBody struct {
	message string // the provider's human-readable message
	typ     string // error.type
	code    string // error.code, as a string even when the body carries a number
	// generation is error.failed_generation; hasGeneration tells an empty one from an absent one.
	generation    string
	hasGeneration bool
}

// parseErrorBody reads an error body in any of the shapes [termination.ReadErrorBody] reads: an
// OpenAI-style {"error":{...}} object, a bare error object, an Ollama {"error":"..."}, an SSE
// error event, JSON after a client library's prose prefix, a JSON string holding JSON, a
// Python or JavaScript rendering of the object, or plain text.
func parseErrorBody(body string) errorBody {
	b := termination.ReadErrorBody(body)
	return errorBody{message: b.Message, typ: b.Type, code: b.Code, generation: b.Generation, hasGeneration: b.HasGeneration}
}

// matchJSONObject returns the end (exclusive) of the JSON object or array opening at s[i],
// tracking double-quoted strings; -1 when it does not close.
func matchJSONObject(s string, i int) int {
	depth := 0
	inString := false
	for j := i; j < len(s); j++ {
		c := s[j]
		if inString {
			switch c {
			case '\\':
				j++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func skipSpace(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	return j
}
