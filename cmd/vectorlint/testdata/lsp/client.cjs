// An LSP session driven by the protocol library VS Code's extensions use
// (vscode-languageserver-protocol over vscode-jsonrpc), talking to `vectorlint lsp` on this
// process's standard input and output. Run by cmd/vectorlint.TestLSPWithVSCodeClient, which
// runs the server in-process against the fake model server and checks what this script writes
// to the file named by VECTORLINT_LSP_RESULT. Each step waits for what the server must send; a
// step that does not come within 20 s fails the session (exit 1, the reason on stderr).
"use strict";

const fs = require("fs");
const path = require("path");
const url = require("url");
const lsp = require("vscode-languageserver-protocol/node");

const dir = process.env.VECTORLINT_LSP_PROJECT;
const resultFile = process.env.VECTORLINT_LSP_RESULT;
const docPath = path.join(dir, "docs", "guide.md");
const uri = url.pathToFileURL(docPath).href;
const ruleUri = url.pathToFileURL(path.join(dir, "rules", "Acme", "words.md")).href;

const connection = lsp.createProtocolConnection(
  new lsp.StreamMessageReader(process.stdin),
  new lsp.StreamMessageWriter(process.stdout),
);

const published = new Map(); // uri -> the latest diagnostics
const log = []; // what the session saw, step by step, for the Go test
const messages = [];
const progress = [];
let changed = () => {};

connection.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  published.set(p.uri, p.diagnostics);
  changed();
});
connection.onNotification(lsp.ShowMessageNotification.type, (p) => {
  messages.push(p);
  changed();
});
connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, (p) => {
  progress.push("create");
  connection.onProgress(lsp.WorkDoneProgress.type, p.token, (v) => {
    progress.push(v.kind);
    changed();
  });
  return null;
});
connection.listen();

// until resolves when ok() holds, checked on every message from the server.
function until(what, ok) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out waiting for " + what + "; published: " +
      JSON.stringify(Object.fromEntries(published)))), 20000);
    const check = () => {
      let v;
      try { v = ok(); } catch (e) { v = false; }
      if (v) {
        clearTimeout(timer);
        changed = () => {};
        resolve(v);
      }
    };
    changed = check;
    check();
  });
}

const diags = (u) => published.get(u) || null;
const codes = (u) => (diags(u) || []).map((d) => d.code);
// writeWhole replaces a file as an editor saving it does (a temporary file renamed over it), so
// the server, which may be reading the rules at that moment, never sees it half written.
function writeWhole(file, text) {
  fs.writeFileSync(file + ".tmp", text);
  fs.renameSync(file + ".tmp", file);
}
const show = (ds) => ds.map((d) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.severity} ${d.code ?? ""}: ${d.message}`);

// applyEdits applies LSP text edits to a text: positions are lines and UTF-16 units, which is
// what JavaScript strings index.
function applyEdits(text, edits) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\r" && text[i + 1] === "\n") { starts.push(i + 2); i++; }
    else if (text[i] === "\n" || text[i] === "\r") starts.push(i + 1);
  }
  const offset = (p) => Math.min(starts[Math.min(p.line, starts.length - 1)] + p.character, text.length);
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  return text;
}

async function main() {
  const init = await connection.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid,
    rootUri: url.pathToFileURL(dir).href,
    capabilities: { window: { workDoneProgress: true }, textDocument: { publishDiagnostics: {}, codeAction: {} } },
  });
  log.push({ step: "initialize", capabilities: init.capabilities, serverInfo: init.serverInfo });
  await connection.sendNotification(lsp.InitializedNotification.type, {});

  // Open: the deterministic findings at once, then the model's.
  let text = fs.readFileSync(docPath, "utf8");
  let version = 1;
  await connection.sendNotification(lsp.DidOpenTextDocumentNotification.type,
    { textDocument: { uri, languageId: "markdown", version, text } });
  await until("the model's finding", () => codes(uri).includes("Acme.Wordiness"));
  log.push({ step: "open", diagnostics: show(diags(uri)), progress: [...progress] });

  // The quick fix at the finding, applied as VS Code applies a workspace edit.
  const finding = diags(uri).find((d) => d.code === "Acme.Wordiness");
  const actions = await connection.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: { uri }, range: finding.range, context: { diagnostics: [finding] },
  });
  log.push({ step: "codeAction", actions: actions.map((a) => ({ title: a.title, kind: a.kind, isPreferred: !!a.isPreferred })) });
  const quick = actions.find((a) => a.kind === "quickfix");
  text = applyEdits(text, quick.edit.changes[uri]);
  await connection.sendNotification(lsp.DidChangeTextDocumentNotification.type,
    { textDocument: { uri, version: ++version }, contentChanges: [{ text }] });
  await until("the fixed finding gone", () => diags(uri) && !codes(uri).includes("Acme.Wordiness"));
  log.push({ step: "fixed", text, diagnostics: show(diags(uri)) });

  // Save (the editor wrote the file): the model runs on the fixed text and finds nothing.
  fs.writeFileSync(docPath, text);
  const before = progress.length;
  await connection.sendNotification(lsp.DidSaveTextDocumentNotification.type, { textDocument: { uri }, text });
  await until("the save's model run", () => progress.length >= before + 3 && progress[progress.length - 1] === "end");
  log.push({ step: "saved", diagnostics: show(diags(uri)) });

  // A change that removes a finding: the deterministic one goes at once.
  text = text.replace("utilize", "use");
  await connection.sendNotification(lsp.DidChangeTextDocumentNotification.type,
    { textDocument: { uri, version: ++version }, contentChanges: [{ text }] });
  await until("the deterministic finding gone", () => !codes(uri).includes("Acme.Plain"));
  log.push({ step: "changed", diagnostics: show(diags(uri)) });

  // A broken rule: shown on the document, on the rule file and in a message.
  const rulePath = url.fileURLToPath(ruleUri);
  const good = fs.readFileSync(rulePath, "utf8");
  writeWhole(rulePath, good.replace("severity: error", "severity: fatal"));
  await connection.sendNotification(lsp.DidChangeTextDocumentNotification.type,
    { textDocument: { uri, version: ++version }, contentChanges: [{ text: text + "\n" }] });
  text += "\n";
  await until("the rule's problem", () => (diags(ruleUri) || []).length === 1 && messages.length === 1);
  log.push({ step: "broken rule", diagnostics: show(diags(uri)), rule: show(diags(ruleUri)), messages: [...messages] });

  // Mended and saved: the rule file's diagnostic is cleared and the document linted again.
  writeWhole(rulePath, good);
  await connection.sendNotification(lsp.DidSaveTextDocumentNotification.type, { textDocument: { uri }, text });
  await until("the rule's problem cleared", () => (diags(ruleUri) || [1]).length === 0 && codes(uri).includes("Acme.Title"));
  log.push({ step: "mended", diagnostics: show(diags(uri)), rule: show(diags(ruleUri)) });

  const shutdown = await connection.sendRequest(lsp.ShutdownRequest.type);
  log.push({ step: "shutdown", result: shutdown });
  await connection.sendNotification(lsp.ExitNotification.type);
  fs.writeFileSync(resultFile, JSON.stringify(log, null, 2));
}

main().then(
  () => setTimeout(() => process.exit(0), 50),
  (err) => {
    fs.writeFileSync(resultFile, JSON.stringify(log, null, 2));
    process.stderr.write("LSP session failed: " + (err && err.stack || err) + "\n");
    process.exit(1);
  },
);
