// Package finding is the vocabulary every output of vectorlint speaks: what a lint run found
// and how it ended, independent of how it was found.
package finding
