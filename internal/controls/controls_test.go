package controls

import (
	"reflect"
	"testing"
)

// TestFind: both forms, every kind, names as written, offsets of the whole comment; text that
// only looks like a control is not one.
func TestFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []Comment
	}{
		{"none", "Plain text.\n", nil},
		{"prefix alone", "vectorlint-disable outside a comment\n", nil},
		{"html disable", "a <!-- vectorlint-disable --> b", []Comment{{Start: 2, End: 29, Kind: "disable"}}},
		{"html with names", "<!--vectorlint-enable Acme.Tone, Acme.X-->", []Comment{{Start: 0, End: 42, Kind: "enable", Names: "Acme.Tone, Acme.X"}}},
		{"next line before disable", "<!-- vectorlint-disable-next-line Acme -->\n<!-- vectorlint-disable -->",
			[]Comment{{Start: 0, End: 42, Kind: "disable-next-line", Names: "Acme"}, {Start: 43, End: 70, Kind: "disable"}}},
		{"mdx", "x {/* vectorlint-disable Acme.Tone */} y", []Comment{{Start: 2, End: 38, Kind: "disable", Names: "Acme.Tone"}}},
		{"unknown kind", "<!-- vectorlint-silence -->", nil},
		{"unclosed", "<!-- vectorlint-disable", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Find(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Find(%q) = %+v, want %+v", tt.text, got, tt.want)
			}
		})
	}
}
