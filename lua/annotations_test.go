package lua_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// publicAnnotations reads each file with Neovim's tree-sitter Lua parser
// and lists every public function (function M.name, M.name = function, or
// M.name = a local function of the file) whose comment block lacks a
// ---@param for a parameter, or a ---@return while its body returns a
// value (returns inside nested functions aside). A public function held in
// a local variable needs a ---@type fun(...) instead. It answers
// {total = public functions seen, problems = {"file: text"}}.
const publicAnnotations = `
local files = ...
local ts = vim.treesitter
local total, problems = 0, {}

for file, src in pairs(files) do
  local root = ts.get_string_parser(src, 'lua'):parse()[1]:root()
  local function text(node)
    return ts.get_node_text(node, src)
  end
  -- The ---@ lines of the comment block right above node.
  local function annotations(node)
    local out = {}
    local prev = node:prev_sibling()
    local row = node:start()
    while prev and prev:type() == 'comment' and select(1, prev:end_()) >= row - 1 do
      local line = text(prev)
      local tag, rest = line:match('^%-%-%-@(%w+)%s*(.*)$')
      if tag then
        table.insert(out, { tag = tag, rest = rest })
      end
      row = prev:start()
      prev = prev:prev_sibling()
    end
    return out
  end
  local function returns_value(body)
    if not body then
      return false
    end
    for child in body:iter_children() do
      local t = child:type()
      if t == 'return_statement' and child:named_child_count() > 0 then
        return true
      end
      if t ~= 'function_definition' and t ~= 'function_declaration' and returns_value(child) then
        return true
      end
    end
    return false
  end
  local function check(label, decl, fn)
    total = total + 1
    local notes = annotations(decl)
    local params, has_return, typed = {}, false, false
    for _, a in ipairs(notes) do
      if a.tag == 'param' then
        params[a.rest:match('^(%S+)')] = true
      elseif a.tag == 'return' then
        has_return = true
      elseif a.tag == 'type' and a.rest:match('^fun%(') then
        typed = true
      end
    end
    if not fn then
      if not typed then
        table.insert(problems, file .. ': ' .. label .. ' is a variable without ---@type fun(...)')
      end
      return
    end
    for p in fn:field('parameters')[1]:iter_children() do
      local name = (p:type() == 'identifier' and text(p)) or (p:type() == 'vararg_expression' and '...') or nil
      if name and name:sub(1, 1) ~= '_' and not params[name] and not params[name .. '?'] then
        table.insert(problems, file .. ': ' .. label .. ' has no ---@param ' .. name)
      end
    end
    if not has_return and returns_value(fn:field('body')[1]) then
      table.insert(problems, file .. ': ' .. label .. ' returns a value without ---@return')
    end
  end
  local function module_field(node)
    if node and node:type() == 'dot_index_expression' and text(node:field('table')[1]) == 'M' then
      return text(node:field('field')[1])
    end
  end

  -- The file's top-level local functions and variables, by name.
  local locals = {}
  for node in root:iter_children() do
    if node:type() == 'function_declaration' and node:field('name')[1]:type() == 'identifier' then
      locals[text(node:field('name')[1])] = { decl = node, fn = node }
    elseif node:type() == 'variable_declaration' then
      local name = text(node):match('^local%s+([%w_]+)%s*$')
      if name then
        locals[name] = { decl = node }
      end
    end
  end
  for node in root:iter_children() do
    local t = node:type()
    if t == 'function_declaration' then
      local field = module_field(node:field('name')[1])
      if field then
        check('M.' .. field, node, node)
      end
    elseif t == 'assignment_statement' then
      local vars, values = node:named_child(0), node:named_child(1)
      if vars and values and vars:named_child_count() == 1 and values:named_child_count() == 1 then
        local field, value = module_field(vars:named_child(0)), values:named_child(0)
        if field and value:type() == 'function_definition' then
          check('M.' .. field, node, value)
        elseif field and value:type() == 'identifier' and locals[text(value)] then
          local l = locals[text(value)]
          check('M.' .. field .. ' (' .. text(value) .. ')', l.decl, l.fn)
        end
      end
    end
  end
end
table.sort(problems)
return { total = total, problems = problems }
`

type annotationReport struct {
	Total    int      `msgpack:"total"`
	Problems []string `msgpack:"problems"`
}

func checkAnnotations(t *testing.T, files map[string]string) annotationReport {
	t.Helper()
	s, _ := testenv.Embedded(t, t.TempDir())
	var r annotationReport
	if err := s.ExecLua(testenv.Context(t), publicAnnotations, &r, files); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPublicFunctionsAnnotated: every public function of every Lua module
// (the bridge's and the plugin's) says its parameters and its return
// values in LuaCATS (---@param, ---@return), as Neovim's own runtime does.
func TestPublicFunctionsAnnotated(t *testing.T) {
	repo := testenv.RepoRoot(t)
	paths, err := filepath.Glob(filepath.Join(repo, "lua", "nvbridge", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := filepath.Glob(filepath.Join(repo, "plugin", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range append(paths, plugin...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, p)
		files[rel] = string(src)
	}
	if len(files) < 20 {
		t.Fatalf("only %d Lua files under %s", len(files), repo)
	}
	r := checkAnnotations(t, files)
	if r.Total < 100 {
		t.Fatalf("only %d public functions found: the check does not see them", r.Total)
	}
	for _, p := range r.Problems {
		t.Error(p)
	}
	t.Logf("%d public functions, %d without their annotations", r.Total, len(r.Problems))
}

// TestAnnotationCheckFinds: the check finds each kind of missing
// annotation, and passes complete ones.
func TestAnnotationCheckFinds(t *testing.T) {
	const src = `local M = {}

--- Complete.
---@param a integer
---@param ... any
---@return integer
function M.good(a, ...)
  return a
end

--- No return annotation needed: nothing is returned but by a nested function.
---@param cb fun(): integer
function M.quiet(cb)
  cb(function() return 1 end)
end

---@param a integer
function M.no_return(a)
  if a then
    return a
  end
end

---@return boolean
function M.no_param(flag)
  return flag
end

local function helper(x)
  return x
end
M.alias = helper

M.inline = function(y) end

local picked
M.variable = picked

return M
`
	r := checkAnnotations(t, map[string]string{"x.lua": src})
	want := []string{
		"x.lua: M.alias (helper) has no ---@param x",
		"x.lua: M.alias (helper) returns a value without ---@return",
		"x.lua: M.inline has no ---@param y",
		"x.lua: M.no_param has no ---@param flag",
		"x.lua: M.no_return returns a value without ---@return",
		"x.lua: M.variable (picked) is a variable without ---@type fun(...)",
	}
	sort.Strings(want)
	if r.Total != 7 || strings.Join(r.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("the check saw %d functions and found:\n%s\nwant 7 and:\n%s", r.Total, strings.Join(r.Problems, "\n"), strings.Join(want, "\n"))
	}
}

// TestLuaFilesSmall: no Lua file is over 700 lines; one that grows past
// that is split by concern (bridge -> observe, async, wait, status).
func TestLuaFilesSmall(t *testing.T) {
	repo := testenv.RepoRoot(t)
	paths, err := filepath.Glob(filepath.Join(repo, "lua", "nvbridge", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	plugin, _ := filepath.Glob(filepath.Join(repo, "plugin", "*.lua"))
	paths = append(paths, plugin...)
	if len(paths) < 20 {
		t.Fatalf("only %d Lua files under %s", len(paths), repo)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > 700 {
			t.Errorf("%s has %d lines (at most 700)", p, n)
		}
	}
}
