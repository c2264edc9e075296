--- What the user reads about the server's answers: the messages of each command and the
--- quickfix / location list entries of `todoLs.list`.
local protocol = require('todo_ls.protocol')

local value = protocol.value

local M = {}

--- The title of the location list of the agent sessions' own todo lists (`:TodoLs toggle` in
--- that list flips the item under the cursor).
M.SESSION_LIST_TITLE = 'todo-ls: agent todo lists'

--- Shows `msg` as a todo-ls message.
---@param msg string
---@param level? integer vim.log.levels, default INFO
function M.notify(msg, level)
  vim.notify('todo-ls: ' .. msg, level or vim.log.levels.INFO, { title = 'todo-ls' })
end

--- `changed 2 of 3 lines; line 4 is not a task item` after a line range, and its log level: nil
--- when every line changed; one refused line alone is a warning with the server's reason.
---@param applied integer
---@param count integer lines asked for
---@param refused string[] the server's reasons, one per refused line
---@return string?, integer
function M.lines_refused(applied, count, refused)
  if #refused == 0 then
    return nil, vim.log.levels.INFO
  end
  if count == 1 then
    return refused[1], vim.log.levels.WARN
  end
  return ('changed %d of %d lines; %s'):format(applied, count, table.concat(refused, '; ')), vim.log.levels.INFO
end

--- `subscribed PLAN.md (2 subscribed)`: the answer to `todoLs.subscribe` / `todoLs.unsubscribe`.
---@param subscribe boolean
---@param uri string
---@param result todo_ls.FilesResult
---@return string
function M.subscription(subscribe, uri, result)
  local name = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')
  return ('%s %s (%d subscribed)'):format(subscribe and 'subscribed' or 'unsubscribed', name, #(result.files or {}))
end

--- The answer to toggling an item of a session's own list, and its log level.
---@param session_id string
---@param index integer 0-based
---@param content? string
---@param result todo_ls.EditResult
---@return string, integer
function M.session_toggled(session_id, index, content, result)
  if result.applied then
    return ('%q is now %s (%s)'):format(content or ('#' .. (index + 1)), value(result.state), session_id), vim.log.levels.INFO
  end
  return ('not changed: %s'):format(value(result.reason) or 'refused'), vim.log.levels.WARN
end

--- The answer to `todoLs.refresh`.
---@param result todo_ls.RefreshResult
---@return string
function M.refreshed(result)
  return ('re-read %d subscribed file(s)'):format(value(result.files) or 0)
end

local function describe_sessions(verb, result)
  local parts = {}
  for _, session in ipairs(result.sessions or {}) do
    table.insert(parts, ('%s (%s)'):format(session.id, session.state))
  end
  if #parts == 0 then
    local reason = value(result.reason)
    return ('no session %s'):format(verb) .. (reason and (': ' .. reason) or '')
  end
  return ('%s %s'):format(verb, table.concat(parts, ', '))
end

local function describe_nudge(result)
  local parts = {}
  if #(result.sent or {}) > 0 then
    table.insert(parts, 'nudged ' .. table.concat(result.sent, ', '))
  end
  for _, skipped in ipairs(result.skipped or {}) do
    local id = value(skipped.sessionID)
    table.insert(parts, (id and ('not nudged %s: '):format(id) or 'not nudged: ') .. tostring(value(skipped.reason)))
  end
  return #parts > 0 and table.concat(parts, '; ') or 'nothing to nudge'
end

--- The answer to `todoLs.nudge`, `todoLs.pause` or `todoLs.resume`: which sessions, or why none.
---@param action 'nudge'|'pause'|'resume'
---@param result todo_ls.NudgeResult|todo_ls.SessionsResult
---@return string
function M.supervisor(action, result)
  if action == 'nudge' then
    return describe_nudge(result)
  end
  return describe_sessions(action == 'pause' and 'paused' or 'resumed', result)
end

local STATUS_MARKS = { completed = '[x]', in_progress = '[/]', cancelled = '[~]', canceled = '[~]' }

--- The entries of a `todoLs.list` result: file items for the quickfix list (each opened by its
--- own `uri`, whichever workspace folder holds it) and the items of the agent sessions' own
--- todo lists for a location list (`user_data` keeps what `toggle_session` needs).
---@param result todo_ls.ListResult
---@return table[] files, table[] sessions
function M.list_entries(result)
  local files, sessions = {}, {}
  for _, item in ipairs(result.items or {}) do
    if value(item.sessionID) then
      local priority = value(item.priority)
      table.insert(sessions, {
        text = ('%s %s%s  (%s #%d)'):format(
          STATUS_MARKS[item.status] or '[ ]',
          value(item.name) or item.content,
          priority and (' · ' .. priority) or '',
          item.sessionID,
          item.index + 1
        ),
        valid = 0,
        user_data = { sessionID = item.sessionID, index = item.index, content = item.content },
      })
    else
      local text = value(item.name) or item.text -- as the outline names it (an older server: the markdown)
      if item.state ~= 'open' then
        text = ('[%s] %s'):format(item.state, text)
      end
      table.insert(files, { filename = vim.uri_to_fname(item.uri), lnum = item.line, text = text })
    end
  end
  return files, sessions
end

return M
