package tools

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/lsp"
)

// Argument completion (completion/complete) for the prompts' arguments and
// the resource templates' variables:
//
//	file, program (prompts), path (diagnostics template)  paths under the root, one folder level at a time
//	path (buffer, unsaved-diff templates)                 the files loaded in Neovim
//	symbol, test (prompts)                                workspace symbols (workspace/symbol)
//	id (changeset template)                               pending changeset ids
//	session_id (debug templates)                          debug session ids
//
// Every path goes through the workspace policy: a sensitive file or folder
// is never suggested. An argument nvbridge cannot complete (a new name, a
// line) and an unknown prompt get an empty list.

// maxCompletions is MCP's bound on the values of one answer.
const maxCompletions = 100

// symbolCompletionBound bounds a symbol search for completion: a client
// completes as the user types and an empty answer is better than a late one.
const symbolCompletionBound = 10 * time.Second

type completer struct {
	res *resourceSet
}

func (c *completer) env() *Env { return c.res.env }

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	known := false
	for _, p := range prompts {
		if p.name == prompt {
			known = true
		}
	}
	if !known {
		return completion(nil), nil
	}
	switch arg.Name {
	case "file", "program":
		return completion(c.paths(arg.Value)), nil
	case "symbol":
		return completion(c.symbols(ctx, arg.Value, nil)), nil
	case "test":
		return completion(c.symbols(ctx, arg.Value, []string{"function", "method"})), nil
	}
	return completion(nil), nil
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case uri == templateDiagnostics && arg.Name == "path":
		return completion(c.paths(arg.Value)), nil
	case (uri == templateBuffer || uri == templateUnsavedDiff) && arg.Name == "path":
		return completion(c.loadedFiles(ctx, arg.Value)), nil
	case uri == templateChangeset && arg.Name == "id":
		var ids []string
		if c.env().Edit != nil {
			for _, cs := range c.env().Edit.Pending() {
				if c.res.allAllowed(cs.Files) {
					ids = append(ids, cs.ID)
				}
			}
		}
		return completion(withPrefix(ids, arg.Value)), nil
	case (uri == templateDebug || uri == templateDebugOutput) && arg.Name == "session_id":
		var ids []string
		if c.env().DAP != nil {
			ids = c.env().DAP.IDs()
		}
		return completion(withPrefix(ids, arg.Value)), nil
	}
	return completion(nil), nil
}

// completion is an answer of at most maxCompletions values, saying how many
// there are in all.
func completion(values []string) *mcp.Completion {
	out := &mcp.Completion{Values: []string{}}
	total := len(values)
	if total > maxCompletions {
		values = values[:maxCompletions]
		out.HasMore = true
	}
	out.Values = append(out.Values, values...)
	if total > 0 {
		out.Total = total
	}
	return out
}

func withPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// paths completes a path relative to the root one folder level at a time:
// "cmd/nv" lists what cmd/ holds starting with "nv"; folders end in "/".
// Nothing the policy hides, nothing outside the root (a link out of it).
func (c *completer) paths(value string) []string {
	if c.env().Session == nil {
		return nil
	}
	root := c.env().Session.Root()
	value = strings.TrimPrefix(filepath.ToSlash(value), "./")
	if path.IsAbs(value) || strings.Contains("/"+value+"/", "/../") {
		return nil
	}
	dir, base := path.Split(value)
	abs := root.Dir()
	if dir != "" {
		var err error
		if abs, err = root.Resolve(strings.TrimSuffix(dir, "/")); err != nil {
			return nil // outside the root, or a sensitive folder
		}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base) {
			continue
		}
		rel := dir + e.Name()
		real, err := root.Resolve(rel)
		if err != nil {
			continue // sensitive, or a link out of the root
		}
		if info, err := os.Stat(real); err == nil && info.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

// loadedFiles completes the paths of the files Neovim holds.
func (c *completer) loadedFiles(ctx context.Context, value string) []string {
	if c.env().Session == nil {
		return nil
	}
	bufs, err := c.res.buffers(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, b := range bufs {
		if rel, ok := c.res.allowed(b.File); ok && strings.HasPrefix(rel, value) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// symbols completes a symbol name from the workspace's symbols (the
// servers match fuzzily; names are suggested once each, in their order).
func (c *completer) symbols(ctx context.Context, value string, kinds []string) []string {
	if c.env().LSP == nil || strings.TrimSpace(value) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, symbolCompletionBound)
	defer cancel()
	r, err := c.env().LSP.Symbols(ctx, lsp.SymbolsQuery{Query: value, Kinds: kinds, MaxResults: maxCompletions})
	if err != nil {
		c.env().Logf("completion of %q: %v", value, err)
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range r.Symbols {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s.Name)
		}
	}
	return out
}
