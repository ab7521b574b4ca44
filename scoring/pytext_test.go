package scoring

import "testing"

// pyLowerCases are Python 3's str.lower() results, printed by scoring/testdata/reference.py
// (the "lower" lines, Python 3.11, Unicode 14) and pasted here: Unicode's full case mapping
// (U+0130 becomes two characters) and the Final_Sigma rule as CPython applies it.
var pyLowerCases = []struct{ in, want string }{
	// dotted capital I
	{"\u0130", "i\u0307"},
	{"\u0130STANBUL", "i\u0307stanbul"},
	// final sigma
	{"\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2"},
	{"\u039f\u0394\u039f\u03a3 \u039f\u0394\u039f\u03a3.", "\u03bf\u03b4\u03bf\u03c2 \u03bf\u03b4\u03bf\u03c2."},
	{"\u03a3\u0391\u03a3 \u03a3\u0391\u03a3", "\u03c3\u03b1\u03c2 \u03c3\u03b1\u03c2"},
	{"\u038c\u03a3\u039f\u03a3", "\u03cc\u03c3\u03bf\u03c2"},
	// not final: nothing cased before, or a cased letter after
	{"\u03a3", "\u03c3"},
	{"\u03a3 \u0391", "\u03c3 \u03b1"},
	{"1\u03a3", "1\u03c3"},
	{"\u0391\u03a3\u0391", "\u03b1\u03c3\u03b1"},
	{"\u03a3\u03a3", "\u03c3\u03c2"},
	{"\u0391\u03a3\u03a3\u0391", "\u03b1\u03c3\u03c3\u03b1"},
	{"\u0391\u03a31", "\u03b1\u03c21"},
	{"\u0391\u03a3\U0001d400", "\u03b1\u03c3\U0001d400"},
	// case-ignorable characters are skipped on both sides
	{"\u0391\u03a3\u0301", "\u03b1\u03c2\u0301"},
	{"\u0391\u0301\u03a3", "\u03b1\u0301\u03c2"},
	{"\u0391\u03a3'\u0391", "\u03b1\u03c3'\u03b1"},
	{"\u0391\u03a3'", "\u03b1\u03c2'"},
	{"\u0391'\u03a3", "\u03b1'\u03c2"},
	{"\u0391.\u03a3", "\u03b1.\u03c2"},
	{"\u0391\u03a3:\u0391", "\u03b1\u03c3:\u03b1"},
	{"\u0391\u03a3\u2019\u0391", "\u03b1\u03c3\u2019\u03b1"},
	{"\u0391\u03a3\u00b7", "\u03b1\u03c2\u00b7"},
	{"\u0391\u00ad\u03a3", "\u03b1\u00ad\u03c2"},
	{"\u0391\u03a3\u00ad\u0391", "\u03b1\u03c3\u00ad\u03b1"},
	{"\u0391\u03a3\u200b", "\u03b1\u03c2\u200b"},
	{"\u01c5\u03a3", "\u01c6\u03c2"},
	// cased and case-ignorable (modifier letters, ypogegrammeni): skipped before the sigma
	{"\u02b0\u03a3", "\u02b0\u03c3"},
	{"1\u0345\u03a3", "1\u0345\u03c3"},
	{"\u1d2c\u03a3", "\u1d2c\u03c3"},
	{"\u0391\u02b0\u03a3", "\u03b1\u02b0\u03c2"},
	{"\u0391\u03a3\u02b0", "\u03b1\u03c2\u02b0"},
	{"\u0391\u03a3\u02b0\u0391", "\u03b1\u03c3\u02b0\u03b1"},
	{"\u0391\u03a3\u0345", "\u03b1\u03c2\u0345"},
	// no lower-case mapping
	{"\u00df", "\u00df"},
	{"\ufb01", "\ufb01"},
	{"\u0131", "\u0131"},
	{"\u0390", "\u0390"},
	{"\u0587", "\u0587"},
	{"\u2c65", "\u2c65"},
	// capital sharp s, digraphs
	{"\u1e9e", "\u00df"},
	{"\u01c4", "\u01c6"},
	{"\u01c5", "\u01c6"},
	// dotless i and I: no Turkish rule
	{"I\u0131", "i\u0131"},
	// ohm, kelvin and angstrom signs
	{"\u2126", "\u03c9"},
	{"\u212a", "k"},
	{"\u212b", "\u00e5"},
	// combining marks kept
	{"E\u0301", "e\u0301"},
	{"\u0130\u0301", "i\u0307\u0301"},
	// other scripts
	{"\u13a0", "\uab70"},
	{"\U00010400", "\U00010428"},
	{"\u0531", "\u0561"},
	{"\u1f48", "\u1f40"},
	{"\u1fbc", "\u1fb3"},
	{"\u24b6", "\u24d0"},
	{"\u0410\u0411\u0412", "\u0430\u0431\u0432"},
	{"", ""},
	{"already lower, ascii 123", "already lower, ascii 123"},
}

func TestPyLower(t *testing.T) {
	t.Parallel()
	for _, tt := range pyLowerCases {
		if got := pyLower(tt.in); got != tt.want {
			t.Errorf("pyLower(%+q) = %+q; want %+q", tt.in, got, tt.want)
		}
	}
	// Invalid UTF-8: each bad byte becomes U+FFFD, as Python decoding with errors="replace".
	if got, want := pyLower("A\xff\xfe\u03a3"), "a\ufffd\ufffd\u03c3"; got != want {
		t.Errorf("pyLower(invalid UTF-8) = %+q; want %+q", got, want)
	}
}
