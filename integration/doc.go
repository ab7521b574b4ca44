// Package integration tests the integrations shipped at the repository root with the real
// tools that consume them: the pre-commit hook (.pre-commit-hooks.yaml) run by the real
// pre-commit on a temporary git repository, and the GitHub Action (action.yml), whose step
// scripts run with bash the way a runner runs them. Both use the built vectorlint command and
// the fake OpenAI-compatible server (llm/llmtest); nothing reaches the internet.
//
// The package has no code of its own; it exists for its tests.
package integration
