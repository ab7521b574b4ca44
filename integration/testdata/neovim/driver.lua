-- Drives Neovim as a user would, for integration.TestNeovimClient: loads the Neovim 0.7 snippet
-- of docs/editors.md (the file $VECTORLINT_NVIM_SNIPPET), opens a Markdown file of a project so
-- the snippet starts `vectorlint lsp`, waits for the diagnostics, picks the quick fix through
-- vim.lsp.buf.code_action() and its vim.ui.select menu, and writes what Neovim held at each step
-- as JSON to $VECTORLINT_NVIM_RESULT. Run with: nvim --headless -u NONE -i NONE -c 'luafile driver.lua'
local result = { steps = {} }
local limit = 60000 -- milliseconds: a bound on each wait, not a measurement

local function diagnostics(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(out, string.format("%d:%d-%d:%d %d %s: %s", d.lnum, d.col, d.end_lnum, d.end_col, d.severity,
      d.code or lsp.code or "", d.message))
  end
  table.sort(out)
  return out
end

local function has(list, text)
  for _, line in ipairs(list) do
    if line:find(text, 1, true) then
      return true
    end
  end
  return false
end

local function step(name, buf, extra)
  local s = extra or {}
  s.step = name
  s.diagnostics = diagnostics(buf)
  s.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  table.insert(result.steps, s)
end

local function run()
  vim.cmd("filetype on")
  dofile(os.getenv("VECTORLINT_NVIM_SNIPPET"))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("VECTORLINT_NVIM_PROJECT") .. "/docs/guide.md"))
  local buf = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[buf].filetype

  -- The checks that need no model come at once, the model's after the save pause.
  vim.wait(limit, function() return has(diagnostics(buf), "Acme.Wordiness") end, 50)
  step("open", buf)
  result.clients = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    table.insert(result.clients, { name = c.name, root_dir = c.config.root_dir, cmd = c.config.cmd })
  end

  -- The quick fix under the cursor, chosen from the code action menu.
  local menu
  vim.ui.select = function(items, opts, on_choice)
    menu = {}
    local chosen
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      -- format_item returns gsub's two values: keep the title.
      local title = opts.format_item and (opts.format_item(item)) or action.title
      table.insert(menu, title)
      if not chosen and action.kind == "quickfix" then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  local before = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  vim.api.nvim_win_set_cursor(0, { 1, before:find("in order to", 1, true) - 1 })
  vim.lsp.buf.code_action()
  vim.wait(limit, function() return vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] ~= before end, 50)
  -- The edit changed the text the model's finding was on: it goes at once.
  vim.wait(limit, function() return not has(diagnostics(buf), "Acme.Wordiness") end, 50)
  step("fixed", buf, { menu = menu or {} })

  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    c.stop()
  end
  vim.wait(limit, function() return next(vim.lsp.get_active_clients()) == nil end, 50)
  result.stopped = next(vim.lsp.get_active_clients()) == nil
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
local f = assert(io.open(os.getenv("VECTORLINT_NVIM_RESULT"), "w"))
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd(ok and "qall!" or "cquit! 1")
