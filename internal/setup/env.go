package setup

import (
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"
)

// Env loads the environment model settings are read from (spec/trust.md §5): the process
// environment, then .env.local and .env in dir — the folder of the config file that was found,
// or the working directory when no config file is used — then the [env] table of the user
// config, ~/.vectorlint/config.toml. Each value keeps its source for the trust rule. The .env
// files are read through root, the project root (nil, or a root dir is not in: a root opened
// at dir). Files an error names are shown relative to the working directory.
func (h *Host) Env(root *tree.Root, dir string) (*envsource.Env, error) {
	if root != nil && !root.Contains(dir) {
		root = nil
	}
	env, err := envsource.Load(envsource.Options{Process: h.LookupEnv, UserConfig: envsource.UserConfigPath(h.HomeDir()), Dir: dir, Root: root})
	if err != nil {
		return nil, h.RelErr(err)
	}
	return env, nil
}

// ProjectEnvDir is the folder of a project's .env files: its config file's, or the working
// directory when there is no config file (zero-config, or validate --rules).
func (h *Host) ProjectEnvDir(proj *config.Project) string {
	if proj == nil || proj.Config == nil || proj.ZeroConfig {
		return h.Dir
	}
	return proj.Config.Dir
}
