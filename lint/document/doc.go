// Package document is a file as the linter reads it (spec/linter.md): its bytes and positions,
// its format and frontmatter, the scopes that are not prose (skipped scopes), its inline
// controls (suppression), its chunks, and where a model's quote is in it (locating quotes, and
// a fix made an edit only when that is safe). It also finds the files to lint (Discover).
//
//	document.go               the Document: source, body, positions
//	format.go                 formats (Markdown, MDX, AsciiDoc, reStructuredText, HTML, text)
//	skip.go                   skipped scopes, the prose and the text the model is shown
//	suppress.go               inline controls that turn rules off and on
//	chunk.go                  long texts split into chunks
//	locate.go, similarity.go  a quote found in a chunk, exactly down to fuzzily
//	edit.go, fixsafe.go       a model's fix as an edit, when it is safe to make
//	discover.go               the documents named by folders, globs and files
//
// It imports neither the configuration nor the engine: they use it.
package document
