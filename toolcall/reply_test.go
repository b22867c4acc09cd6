package toolcall

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseFallbackReply(t *testing.T) {
	tools := []Tool{{Name: "search"}, {Name: "suggest_followups"}, {Name: "noargs"}}
	call := func(name, args string) Call { return Call{Name: name, Args: json.RawMessage(args)} }
	tests := []struct {
		name  string
		reply string
		want  Reply
	}{
		{"plain answer", "Paris is the capital of France.\n", Reply{Text: "Paris is the capital of France.\n"}},
		{"empty", "", Reply{Text: ""}},
		{"one call", `{"tool":"search","arguments":{"query":"go fuzzing"}}`,
			Reply{Calls: []Call{call("search", `{"query":"go fuzzing"}`)}}},
		{"answer then the marker (the origin's contract)", "Here is the essay.\n\n{\"tool\":\"suggest_followups\",\"arguments\":{\"followups\":[{\"prompt\":\"More?\"}]}}",
			Reply{Calls: []Call{call("suggest_followups", `{"followups":[{"prompt":"More?"}]}`)}, Text: "Here is the essay."}},
		{"fenced call", "Searching now.\n```json\n{\n  \"tool\": \"search\",\n  \"arguments\": {\"query\": \"x\"}\n}\n```\n",
			Reply{Calls: []Call{call("search", `{"query":"x"}`)}, Text: "Searching now."}},
		{"prose around and between", "First.\n{\"tool\":\"search\",\"arguments\":{\"query\":\"a\"}}\nThen.\n{\"tool\":\"search\",\"arguments\":{\"query\":\"b\"}}\nDone.",
			Reply{Calls: []Call{call("search", `{"query":"a"}`), call("search", `{"query":"b"}`)}, Text: "First.\n\nThen.\n\nDone."}},
		{"array of calls", `[{"tool":"search","arguments":{"query":"a"}}, {"tool":"noargs"}]`,
			Reply{Calls: []Call{call("search", `{"query":"a"}`), call("noargs", `{}`)}}},
		{"two objects in one fence", "```json\n{\"tool\":\"search\",\"arguments\":{\"query\":\"a\"}}\n{\"tool\":\"noargs\",\"arguments\":null}\n```",
			Reply{Calls: []Call{call("search", `{"query":"a"}`), call("noargs", `{}`)}}},
		{"trailing commas", `{"tool":"search","arguments":{"query":"a","limit":[1,2,],},}`,
			Reply{Calls: []Call{call("search", `{"query":"a","limit":[1,2]}`)}}},
		{"single quotes", `{'tool': 'search', 'arguments': {'query': 'say "hi"', 'exact': True, 'page': None}}`,
			Reply{Calls: []Call{call("search", `{"query":"say \"hi\"","exact":true,"page":null}`)}}},
		{"escaped apostrophe in single quotes", `{'tool': 'search', 'arguments': {'query': 'it\'s'}}`,
			Reply{Calls: []Call{call("search", `{"query":"it's"}`)}}},
		{"apostrophe inside double quotes", `{"tool": "search", "arguments": {"query": "it's"}}`,
			Reply{Calls: []Call{call("search", `{"query":"it's"}`)}}},
		{"raw newline in a string", "{\"tool\":\"search\",\"arguments\":{\"query\":\"a\nb\"}}",
			Reply{Calls: []Call{call("search", `{"query":"a\nb"}`)}}},
		{"stringified arguments", `{"tool":"search","arguments":"{\"query\": \"a\"}"}`,
			Reply{Calls: []Call{call("search", `{"query":"a"}`)}}},
		{"name alias", `{"name":"search","arguments":{"query":"a"}}`,
			Reply{Calls: []Call{call("search", `{"query":"a"}`)}}},
		{"name alias with parameters", `{"name":"search","parameters":{"query":"a"}}`,
			Reply{Calls: []Call{call("search", `{"query":"a"}`)}}},
		{"a name object that is not a call stays text", `My cat: {"name": "Tom", "age": 3}`, Reply{Text: `My cat: {"name": "Tom", "age": 3}`}},
		{"unknown tool rejected", "Deleting.\n{\"tool\":\"rm_rf\",\"arguments\":{\"path\":\"/\"}}",
			Reply{Text: "Deleting.", Rejected: []Call{call("rm_rf", `{"path":"/"}`)}}},
		{"tool names are exact", `{"tool":"Search","arguments":{}}`, Reply{Rejected: []Call{call("Search", `{}`)}}},
		{"unbalanced call is plain text", `Calling {"tool":"search","arguments":{"query":"a"}`, Reply{Text: `Calling {"tool":"search","arguments":{"query":"a"}`}},
		{"unrepairable call is plain text", `{"tool":"search","arguments":{query: a}} and {"tool":"noargs"}`, Reply{Text: `{"tool":"search","arguments":{query: a}} and {"tool":"noargs"}`}},
		{"apostrophe in single quotes is not guessed at", `{'tool': 'search', 'arguments': {'query': 'it's'}}`, Reply{Text: `{'tool': 'search', 'arguments': {'query': 'it's'}}`}},
		{"arguments not an object", `{"tool":"search","arguments":["a"]}`, Reply{Text: `{"tool":"search","arguments":["a"]}`}},
		{"tool not a string", `{"tool":7,"arguments":{}}`, Reply{Text: `{"tool":7,"arguments":{}}`}},
		{"array with a non-call", `[{"tool":"search"}, 3]`, Reply{Text: `[{"tool":"search"}, 3]`}},
		{"one bad call spoils the reply", "{\"tool\":\"search\",\"arguments\":{}}\n{\"tool\":\"noargs\",\"arguments\":5}", Reply{Text: "{\"tool\":\"search\",\"arguments\":{}}\n{\"tool\":\"noargs\",\"arguments\":5}"}},
		{"user-requested code fence survives", "Here:\n```json\n{\"type\":\"object\"}\n```\n{\"tool\":\"noargs\"}",
			Reply{Calls: []Call{call("noargs", `{}`)}, Text: "Here:\n```json\n{\"type\":\"object\"}\n```"}},
		{"call inside arguments is not a second call", `{"tool":"search","arguments":{"query":"{\"tool\":\"noargs\"}"}}`,
			Reply{Calls: []Call{call("search", `{"query":"{\"tool\":\"noargs\"}"}`)}}},
		{"Truthy words inside strings untouched", `{'tool': 'search', 'arguments': {'query': 'True None'}}`,
			Reply{Calls: []Call{call("search", `{"query":"True None"}`)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseFallbackReply(tc.reply, tools)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseFallbackReply(%q)\ngot  %s\nwant %s", tc.reply, jsonOf(t, got), jsonOf(t, tc.want))
			}
		})
	}
}

// TestParseFallbackReplyNoTools: with no tools offered, every call is rejected.
func TestParseFallbackReplyNoTools(t *testing.T) {
	r := ParseFallbackReply(`{"tool":"search","arguments":{}}`, nil)
	if len(r.Calls) != 0 || len(r.Rejected) != 1 {
		t.Errorf("got %+v", r)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
