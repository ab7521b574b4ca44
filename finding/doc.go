// Package finding is the vocabulary every output of vectorlint speaks: what a run found, where,
// and how the run ended. It is a leaf — the standard library and two small internal helpers —
// so the packages that print, apply, merge or show findings (report, fix, the editor server,
// `vectorlint merge`) link none of the engine that makes them, as golang.org/x/tools/go/analysis's
// Diagnostic is shared by every analyzer and every driver.
//
// The words:
//
//   - Severity: suggestion, warning or error, the one severity of rules, configuration, flags and
//     findings; its zero value is "unset", so a forgotten severity is caught.
//   - Position and LineIndex: a place in a file's bytes. The byte offset is the truth; a LineIndex
//     of the text computes the line and the code-point, byte and UTF-16 columns from it.
//   - Finding: a rule's message on [Start, End) of a file, with its match and its fix as Edits
//     (TextEdit: replace bytes with a new text), applied together or not at all.
//   - Score (with CriterionScore and Rounded1), Unverified, RuleError, RunError, Skipped: the
//     rest of what a run says about a file or about itself.
//   - FileResult: one file's findings, scores, unverified quotes and errors. Summary counts files
//     into totals (Summary.Add, the one place a summary is computed); Totals close a run (the
//     summary, the model usage, the skipped files, the failures of the whole run); Result is a
//     whole run; Outcome is its verdict (Totals.Outcome: ok, findings, failed), which the
//     command's exit code says.
//   - Problem: one thing wrong with an input file (a rule, vectorlint.ini, a list of points, a
//     blueprint), with its file, line, field, code and level.
//   - RuleInfo: what the output formats that describe rules (SARIF) need of a rule file.
//
// How a finding travels: the engine (package lint) locates a model's quote or a deterministic
// check's match in a document, makes a Finding with positions from the document's LineIndex and,
// when the fix is safe to make, its edits; it emits one FileResult per file in path order. The
// printers of package report write each FileResult as it comes, in their own units (code points,
// bytes, Vale's span), and the totals at the end; package fix applies the edits to the file;
// the editor server turns offsets into UTF-16 positions with a LineIndex of the buffer. The native
// JSON output is this package's own: JSONWriter writes it file by file, ReadJSON reads it back
// into the Result it was written from (vectorlint merge), and Merge joins the results of a
// sharded run. docs/how-it-works.md draws the whole path.
package finding
