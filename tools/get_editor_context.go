package tools

import (
	"context"
	"fmt"
	"strings"
)

type getEditorContextArgs struct {
	IncludeBuffers *bool `json:"include_buffers,omitempty" jsonschema:"list the open buffers (default true)"`
}

type editorContextResult struct {
	// Attached is false in an embedded Neovim: there is no user, and
	// nothing else is filled in.
	Attached     bool                `json:"attached"`
	File         string              `json:"file" jsonschema:"the file in the user's current window (relative to the root; absolute when outside it)"`
	Line         int                 `json:"line"`
	Column       int                 `json:"column"`
	Selection    *editorSelection    `json:"selection,omitempty"`
	VisibleFirst int                 `json:"visible_first_line"`
	VisibleLast  int                 `json:"visible_last_line"`
	Mode         string              `json:"mode"`
	Buffers      []editorContextFile `json:"buffers"`
}

type editorContextFile struct {
	File     string `json:"file"`
	Modified bool   `json:"modified"`
	Visible  bool   `json:"visible"`
}

func (r editorContextResult) Summary() string {
	if !r.Attached {
		return "nvbridge runs its own headless Neovim: there is no user, cursor or selection"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d (lines %d-%d visible, mode %s)", r.File, r.Line, r.Column, r.VisibleFirst, r.VisibleLast, r.Mode)
	if s := r.Selection; s != nil {
		what := "last selection"
		if s.Live {
			what = "selecting"
		}
		fmt.Fprintf(&b, "; %s %s:%d:%d-%d:%d", what, s.File, s.StartLine, s.StartColumn, s.EndLine, s.EndColumn)
	}
	for _, f := range r.Buffers {
		fmt.Fprintf(&b, "\n  %s", f.File)
		if f.Modified {
			b.WriteString(" [modified]")
		}
		if f.Visible {
			b.WriteString(" [visible]")
		}
	}
	return b.String()
}

func getEditorContextTool(env *Env) Tool {
	return newTool("get_editor_context", "Where the user is",
		`Where the user is in their Neovim: the file in the current window, the cursor (1-based line, 0-based character column), the selection (the one being made in visual mode, else the last one, in whichever buffer), the visible lines, the mode, and the open buffers (modified or visible). Position tools also accept at: "cursor" and range tools range: "selection". In an embedded Neovim (no user) attached is false and nothing else is filled in.`,
		readOnly,
		func(ctx context.Context, in getEditorContextArgs) (editorContextResult, error) {
			if env.Session != nil && env.Session.Embedded() {
				return editorContextResult{Buffers: []editorContextFile{}}, nil
			}
			ed, err := readEditor(ctx, env)
			if err != nil {
				return editorContextResult{}, err
			}
			out := editorContextResult{Attached: true, File: ed.File, Line: ed.Cursor.Line, Column: ed.Cursor.Column, Selection: ed.Selection,
				VisibleFirst: ed.Visible.First, VisibleLast: ed.Visible.Last, Mode: ed.Mode, Buffers: []editorContextFile{}}
			for _, f := range ed.Buffers {
				if in.IncludeBuffers != nil && !*in.IncludeBuffers {
					break
				}
				out.Buffers = append(out.Buffers, editorContextFile{File: f.File, Modified: f.Modified, Visible: f.Visible})
			}
			return out, nil
		})
}
