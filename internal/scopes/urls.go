package scopes

import (
	"bytes"
	"unicode/utf8"
)

// Bare URLs and email addresses in text that no Markdown parser reads: plain text, and the text
// of AsciiDoc, reStructuredText and HTML documents (their scanners call findURLs on prose).
// What counts, as goldmark's linkify extension and GitHub count it for Markdown:
//
//   - a URL starting at a word boundary with http://, https://, ftp://, ftps://, sftp://,
//     file://, mailto: or www., up to white space, "<", ">", a quote or a backtick, without
//     the punctuation that ends a sentence (".", ",", ":", ";", "!", "?", "*", "_", "~",
//     quotes) and without a ")", "]" or "}" that it does not open;
//   - an email address: a local part of letters, digits and "._%+-", "@", and a domain of at
//     least two labels.

// urlPrefixes are the starts of a bare URL (matched without regard to case).
func urlPrefixes() []string {
	return []string{"https://", "http://", "ftps://", "ftp://", "sftp://", "file://", "mailto:", "www."}
}

// isWordByte reports whether c continues a word for the boundary before a URL: letters,
// digits, "_", and any byte of a multi-byte character.
func isWordByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c >= utf8.RuneSelf
}

// urlBoundary reports whether a URL or email address may start at src[i]: at the start of
// the text, or after a byte that does not continue a word, a path or an address.
func urlBoundary(src []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := src[i-1]
	return !isWordByte(c) && c != '.' && c != '/' && c != '@' && c != '-' && c != '+' && c != '%' && c != ':'
}

// urlAt returns the end of a bare URL that starts at src[i] (with one of urlPrefixes), not
// beyond limit, or -1; a byte of stops also ends it. The caller checks the boundary before i.
func urlAt(src []byte, i, limit int, stops string) int {
	prefix := 0
	for _, p := range urlPrefixes() {
		if limit-i > len(p) && bytes.EqualFold(src[i:i+len(p)], []byte(p)) {
			prefix = len(p)
			break
		}
	}
	if prefix == 0 {
		return -1
	}
	j := i + prefix
	for j < limit && !urlStop(src[j]) && (stops == "" || bytes.IndexByte([]byte(stops), src[j]) < 0) {
		j++
	}
	j = trimURL(src, i+prefix, j)
	if j <= i+prefix {
		return -1
	}
	return j
}

// urlStop reports whether c ends a bare URL.
func urlStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '<', '>', '"', '`', 0:
		return true
	}
	return c < ' ' || c == 0x7f
}

// trimURL takes the punctuation that ends a sentence, and closing brackets the URL does not
// open, off the end of src[start:end]; it returns the new end.
func trimURL(src []byte, start, end int) int {
	// opens[k]-closes[k]: the balance of "()", "[]" and "{}" in src[start:end].
	var balance [3]int
	pair := func(c byte) (k int, d int) {
		switch c {
		case '(':
			return 0, 1
		case ')':
			return 0, -1
		case '[':
			return 1, 1
		case ']':
			return 1, -1
		case '{':
			return 2, 1
		case '}':
			return 2, -1
		}
		return -1, 0
	}
	for _, c := range src[start:end] {
		if k, d := pair(c); k >= 0 {
			balance[k] += d
		}
	}
	for end > start {
		c := src[end-1]
		switch c {
		case '.', ',', ':', ';', '!', '?', '*', '_', '~', '\'', '"':
			end--
			continue
		case ')', ']', '}':
			if k, _ := pair(c); balance[k] < 0 {
				balance[k]++
				end--
				continue
			}
		}
		break
	}
	return end
}

// isLocalByte reports whether c may be part of the local part of an email address.
func isLocalByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// emailDomainEnd returns the end of the domain of an email address whose "@" is at src[at],
// or -1: labels of letters, digits and "-" separated by dots, at least two, the last of at
// least two letters.
func emailDomainEnd(src []byte, at, limit int) int {
	j, labels, end := at+1, 0, -1
	for j < limit {
		k := j
		for k < limit && (('a' <= src[k] && src[k] <= 'z') || ('A' <= src[k] && src[k] <= 'Z') || ('0' <= src[k] && src[k] <= '9') || src[k] == '-') {
			k++
		}
		if k == j {
			break
		}
		labels++
		if labels >= 2 && allLetters(src[j:k]) && k-j >= 2 {
			end = k
		}
		if k+1 < limit && src[k] == '.' && isLocalByte(src[k+1]) && src[k+1] != '.' {
			j = k + 1
			continue
		}
		break
	}
	if end > 0 && end < limit && (src[end] == '@' || isWordByte(src[end])) {
		return -1
	}
	return end
}

func allLetters(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// findURLs calls add for each bare URL and email address in src[start:end], in order, with
// its bounds. It reads each byte a bounded number of times.
func findURLs(src []byte, start, end int, add func(s, e int)) {
	for i := start; i < end; {
		s, e := nextURL(src, i, end, "")
		if s < 0 {
			return
		}
		add(s, e)
		i = e
	}
}

// nextURL returns the first bare URL or email address in src[i:end] (a byte of stops ends a
// URL), or -1, -1.
func nextURL(src []byte, i, end int, stops string) (int, int) {
	for i < end {
		if !isLocalByte(src[i]) || !urlBoundary(src, i) {
			i++
			continue
		}
		e, skip := linkAt(src, i, end, stops)
		if e > 0 {
			return i, e
		}
		i = skip
	}
	return -1, -1
}

// linkAt returns the end of a bare URL or email address that starts at src[i] (the caller
// checks the boundary before it), or -1 and where a search for the next one goes on (past
// the run of bytes that was read as a possible email address).
func linkAt(src []byte, i, end int, stops string) (e, skip int) {
	if e := urlAt(src, i, end, stops); e > 0 {
		return e, e
	}
	j := i
	for j < end && isLocalByte(src[j]) {
		j++
	}
	if j < end && src[j] == '@' && j > i && src[j-1] != '.' && src[i] != '.' {
		if e := emailDomainEnd(src, j, end); e > 0 {
			return e, e
		}
	}
	return -1, max(j, i+1)
}

// plainScopes are the scopes of plain text: its URLs, each a word of its sentence.
func plainScopes(src []byte) []Scope {
	var ss []Scope
	findURLs(src, 0, len(src), func(s, e int) {
		ss = append(ss, Scope{Kind: URL, Start: s, End: e, Placeholder: true})
	})
	return ss
}
