package lsp

import (
	"io"

	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint/config"
)

// SetupModel returns the Options.Model of a server whose model runs are set up by the setup
// layer (internal/setup) exactly as a lint run without flags sets up its own: the environment
// and .env files of the project (its folder), the endpoints and the trust rule, the cache, the
// threshold and the concurrency. log receives the client's stall reports.
func SetupModel(h *setup.Host, log io.Writer) func(proj *config.Project) (Model, error) {
	return func(proj *config.Project) (Model, error) {
		envDir := h.ProjectEnvDir(proj)
		if proj.ZeroConfig {
			envDir = proj.Config.Dir // the project's folder stands for the command's working directory
		}
		env, eps, err := h.LintEnv(proj, envDir, setup.Settings{})
		if err != nil {
			return Model{}, err
		}
		run, err := h.Lint(env, eps, proj, setup.LintOptions{Log: log})
		if err != nil {
			return Model{}, err
		}
		return Model{Eval: run.EvalOptions(proj), SearchModel: run.SearchModel, Close: run.Close}, nil
	}
}
