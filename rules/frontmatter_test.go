package rules

import (
	"reflect"
	"testing"
)

func TestSplitFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want Frontmatter
	}{
		{"none", "# Title\n", Frontmatter{}},
		{"yaml", "---\na: 1\n---\nbody", Frontmatter{Found: true, Data: []byte("a: 1\n"), Line: 2, BodyOffset: 13}},
		{"---yaml opener", "---yaml\na: 1\n---\n", Frontmatter{Found: true, Data: []byte("a: 1\n"), Line: 2, BodyOffset: 17}},
		{"blank lines before", "\n\n---\na: 1\n---\nx", Frontmatter{Found: true, Data: []byte("a: 1\n"), Line: 4, BodyOffset: 15}},
		{"CRLF", "---\r\na: 1\r\n---\r\nbody", Frontmatter{Found: true, Data: []byte("a: 1\r\n"), Line: 2, BodyOffset: 16}},
		{"byte order mark", "\ufeff---\na: 1\n---\nbody", Frontmatter{Found: true, Data: []byte("a: 1\n"), Line: 2, BodyOffset: 16}},
		{"byte order mark without frontmatter", "\ufeffbody", Frontmatter{BodyOffset: 3}},
		{"unclosed", "---\na: 1\n", Frontmatter{Unclosed: true}},
		{"closing at end of file without newline", "---\na: 1\n---", Frontmatter{Found: true, Data: []byte("a: 1\n"), Line: 2, BodyOffset: 12}},
		{"empty", "---\n---\n", Frontmatter{Found: true, Data: []byte{}, Line: 2, BodyOffset: 8}},
		{"text before the delimiter", "Title\n---\na: 1\n---\n", Frontmatter{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitFrontmatter([]byte(tt.src))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
