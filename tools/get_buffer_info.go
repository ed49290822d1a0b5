package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/lsp"
)

type getBufferInfoArgs struct {
	fileArg
	IncludeContent *bool `json:"include_content,omitempty" jsonschema:"return the buffer's text (default true)"`
}

type bufferInfoResult struct{ lsp.BufferInfo }

func (r bufferInfoResult) Summary() string {
	names := ""
	for i, s := range r.Servers {
		if i > 0 {
			names += ", "
		}
		names += s.Name
	}
	if names == "" {
		names = "none"
	}
	s := fmt.Sprintf("%s: %d lines, %s, open=%v modified=%v changedtick=%d, servers: %s",
		r.File, r.LineCount, r.Language, r.IsOpen, r.IsModified, r.ChangedTick, names)
	if r.Content != nil {
		s += "\n" + *r.Content
	}
	return s
}

func getBufferInfoTool(env *Env) Tool {
	return newTool("get_buffer_info", "Buffer info",
		"Describe a file's Neovim buffer: whether it is open and modified, line count, language, changedtick, attached language servers, and its content (as Neovim holds it, unsaved changes included).",
		readOnly,
		func(ctx context.Context, in getBufferInfoArgs) (bufferInfoResult, error) {
			info, err := env.LSP.Info(ctx, in.File, in.IncludeContent == nil || *in.IncludeContent)
			return bufferInfoResult{info}, err
		})
}
