// A Zed extension that runs `vectorlint lsp` (docs/editors.md) for Markdown: the vectorlint
// found on the PATH of the worktree's shell, with that shell's environment (the model's
// variables, such as OPENAI_API_KEY, come from there or from a .env beside vectorlint.ini).
use zed_extension_api::{self as zed, LanguageServerId, Result};

struct Vectorlint;

impl zed::Extension for Vectorlint {
    fn new() -> Self {
        Vectorlint
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let command = worktree.which("vectorlint").ok_or_else(|| {
            "vectorlint is not on the PATH: go install github.com/vectorlint/vectorlint/cmd/vectorlint@latest"
                .to_string()
        })?;
        Ok(zed::Command {
            command,
            args: vec!["lsp".to_string()],
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(Vectorlint);
