package dashboard_test

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// node is an element of a parsed page; a text node has an empty Tag.
type node struct {
	Tag  string
	Attr map[string]string
	Kids []*node
	Data string // a text node's text
}

// parseHTML parses a page the way encoding/xml reads HTML: leniently, closing void elements
// and knowing HTML's entities. The dashboard's markup is regular enough for that, so the
// tests need no HTML parser dependency.
func parseHTML(t *testing.T, page string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	root := &node{Tag: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parse page: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{Tag: tok.Name.Local, Attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			top.Kids = append(top.Kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].Tag == tok.Name.Local {
					stack = stack[:i]
					break
				}
			}
		case xml.CharData:
			top.Kids = append(top.Kids, &node{Data: string(tok)})
		}
	}
	return root
}

// all returns the elements under n (n included) that match, in document order.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(n *node) {
		if n.Tag != "" && match(n) {
			out = append(out, n)
		}
		for _, k := range n.Kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// find returns the elements with tag (any, when empty) whose attribute attr is present and,
// when value is not empty, equal to it or, for class, one of its classes.
func (n *node) find(tag, attr, value string) []*node {
	return n.all(func(e *node) bool {
		if tag != "" && e.Tag != tag {
			return false
		}
		v, ok := e.Attr[attr]
		switch {
		case attr == "":
			return true
		case !ok:
			return false
		case value == "":
			return true
		case attr == "class":
			return strings.Contains(" "+v+" ", " "+value+" ")
		}
		return v == value
	})
}

// one returns the only element find returns, failing the test when there is not one.
func (n *node) one(t *testing.T, tag, attr, value string) *node {
	t.Helper()
	got := n.find(tag, attr, value)
	if len(got) != 1 {
		t.Fatalf("%d <%s %s=%q> elements, want 1", len(got), tag, attr, value)
	}
	return got[0]
}

// text is n's text content, with runs of white space collapsed.
func (n *node) text() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(n *node) {
		b.WriteString(n.Data)
		for _, k := range n.Kids {
			walk(k)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
