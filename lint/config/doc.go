// Package config is a lint run's configuration (spec/linter.md): vectorlint.ini read and
// checked (sections, overrides, settings per file and per rule), a VECTORLINT.md style guide
// alone (zero-config), the directive, and the project they make with its rule packs
// (FindProject, LoadProject). It also lists what a file's settings are (ls-config).
//
//	config.go, overrides.go  vectorlint.ini: globals, sections, rule overrides, checks
//	scopeconfig.go           the keys that set a document's format and skipped scopes
//	zeroconfig.go            a style guide with no vectorlint.ini; the built-in packs
//	directive.go             .vectorlint/directive.md
//	project.go               FindProject and LoadProject: the configuration with its packs
//	fingerprint.go           what the cache keys a project by
//	lsconfig.go              ls-config: the effective settings of each file
//
// It knows documents only by their settings (package document's ScopeSettings); the engine
// (package lint) plans and evaluates with what it returns.
package config
