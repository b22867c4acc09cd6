package stall

import (
	"reflect"
	"testing"
)

func TestOpenTodos(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"no block", "- [ ] an open item outside any todo block", nil},
		{"empty", "", nil},
		{"dash", "<todo>\n- [ ] write tests\n- [x] fix bug\n</todo>", []string{"write tests"}},
		{"star", "<todo>\n* [ ] star item\n</todo>", []string{"star item"}},
		{"plus", "<todo>\n+ [ ] plus item\n</todo>", []string{"plus item"}},
		{"bare", "<todo>\n[ ] bare item\n</todo>", []string{"bare item"}},
		{"numbered dot", "<todo>\n1. [ ] first\n2. [x] second\n10. [ ] tenth\n</todo>", []string{"first", "tenth"}},
		{"numbered paren", "<todo>\n1) [ ] first\n</todo>", []string{"first"}},
		{"indented", "<todo>\n  - [ ] nested\n\t- [ ] tabbed\n</todo>", []string{"nested", "tabbed"}},
		{"capital X closed", "<todo>\n- [X] done\n- [x] done too\n</todo>", nil},
		{"in progress open", "<todo>\n- [~] halfway\n</todo>", []string{"halfway"}},
		{"sloppy empty brackets open", "<todo>\n- [] sloppy\n</todo>", []string{"sloppy"}},
		{"cancelled not open", "<todo>\n- [-] dropped\n</todo>", nil},
		{"unknown mark not open", "<todo>\n- [?] unsure\n- [ x] odd\n</todo>", nil},
		{"no space after box", "<todo>\n- [ ]nospace\n</todo>", nil},
		{"empty item skipped", "<todo>\n- [ ]\n- [ ]   \n</todo>", nil},
		{"item text trimmed", "<todo>\n- [ ]   spaced out   \n</todo>", []string{"spaced out"}},
		{"all closed", "<todo>\n- [x] a\n- [x] b\n</todo>", nil},
		{"plain lines ignored", "<todo>\nSome prose.\n- not a checkbox\n- [ ] real\n</todo>", []string{"real"}},
		{"unclosed block runs to end", "Working.\n<todo>\n- [ ] still open", []string{"still open"}},
		{"last block wins", "<todo>\n- [ ] old\n</todo>\nLater:\n<todo>\n- [x] old\n- [ ] new\n</todo>", []string{"new"}},
		{"last block all done", "<todo>\n- [ ] old\n</todo>\n<todo>\n- [x] old\n</todo>", nil},
		{"after block ignored", "<todo>\n- [x] a\n</todo>\n- [ ] outside", nil},
		{"inline block", "<todo>- [ ] one-liner</todo>", []string{"one-liner"}},
		{"tag case and attributes", "<TODO id=\"t1\">\n- [ ] shout\n</TODO>", []string{"shout"}},
		{"not a todo tag", "<todos>\n- [ ] plural\n</todos>\n<todolist>\n- [ ] x\n</todolist>", nil},
		{"checklist in backtick fence ignored", "<todo>\n```\n- [ ] example\n```\n- [ ] real\n</todo>", []string{"real"}},
		{"checklist in tilde fence ignored", "<todo>\n~~~md\n- [ ] example\n~~~\n</todo>", nil},
		{"todo tag in fence ignored", "```xml\n<todo>\n- [ ] quoted\n</todo>\n```", nil},
		{"closing tag in fence does not close", "<todo>\n- [ ] a\n```\n</todo>\n```\n- [ ] b\n</todo>", []string{"a", "b"}},
		{"crlf", "<todo>\r\n- [ ] windows\r\n</todo>\r\n", []string{"windows"}},
		{"lone cr", "<todo>\r- [ ] old mac\r- [ ] b\r</todo>", []string{"old mac", "b"}},
		{"tag mid line", "Plan: <todo>\n- [ ] mid\n</todo> end", []string{"mid"}},
		{"unicode item", "<todo>\n- [ ] 测试 ✅\n</todo>", []string{"测试 ✅"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OpenTodos(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("OpenTodos(%q) = %q, want %q", tt.text, got, tt.want)
			}
			if has := HasUncheckedTodo(tt.text); has != (len(tt.want) > 0) {
				t.Errorf("HasUncheckedTodo = %t, want %t", has, len(tt.want) > 0)
			}
		})
	}
}
