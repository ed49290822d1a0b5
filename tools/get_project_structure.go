package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/workspace"
)

type getProjectStructureArgs struct {
	Path       string   `json:"path,omitempty" jsonschema:"folder to show, relative to the root (default \".\")"`
	MaxDepth   int      `json:"max_depth,omitempty" jsonschema:"folder levels to list (default 3, at most 20); deeper files are counted, not listed"`
	ShowHidden bool     `json:"show_hidden,omitempty" jsonschema:"list names starting with \".\" (sensitive files are never listed)"`
	Exclude    []string `json:"exclude,omitempty" jsonschema:".gitignore-style patterns to leave out besides what .gitignore files ignore, e.g. [\"testdata/\", \"*.pb.go\"]"`
	MaxEntries int      `json:"max_entries,omitempty" jsonschema:"entries to list at most (default 500, at most 5000); truncated says when some were left out"`
}

type projectStructureResult struct{ workspace.Tree }

func (r projectStructureResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d files, %d folders", r.Root.Path, r.Files, r.Dirs)
	fmt.Fprintf(&b, " (left out: %d ignored, %d hidden, %d sensitive)", r.Ignored, r.Hidden, r.Sensitive)
	if r.Truncated {
		fmt.Fprintf(&b, "; %d entries listed, more not listed", r.Listed)
	}
	if r.Incomplete != "" {
		b.WriteString("; " + r.Incomplete)
	}
	var show func(n *workspace.TreeNode, indent string)
	show = func(n *workspace.TreeNode, indent string) {
		for _, c := range n.Children {
			switch c.Type {
			case "dir":
				fmt.Fprintf(&b, "\n%s%s/ (%d files)", indent, c.Name, c.Files)
			case "symlink":
				fmt.Fprintf(&b, "\n%s%s@", indent, c.Name)
			default:
				fmt.Fprintf(&b, "\n%s%s", indent, c.Name)
			}
			show(c, indent+"  ")
		}
		if n.NotListed > 0 {
			fmt.Fprintf(&b, "\n%s… %d more", indent, n.NotListed)
		}
	}
	show(r.Root, "  ")
	return b.String()
}

func getProjectStructureTool(env *Env) Tool {
	return newTool("get_project_structure", "Project structure",
		"Show the workspace's folders and files as a tree, with file and folder counts, honouring .gitignore and leaving out sensitive files. Use it to find your way in an unknown project; get_symbols with a query finds a definition by name, analyze_dependencies shows how files import each other.",
		readOnly,
		func(ctx context.Context, in getProjectStructureArgs) (projectStructureResult, error) {
			t, err := env.Session.Root().Tree(in.Path, workspace.TreeOptions{
				MaxDepth: in.MaxDepth, ShowHidden: in.ShowHidden, Exclude: in.Exclude, MaxEntries: in.MaxEntries,
			})
			return projectStructureResult{t}, err
		})
}
