package nvim

import (
	"context"
	"path/filepath"
	"strings"
)

// BufferState describes a buffer after Open reconciled it with the disk.
type BufferState struct {
	Bufnr       int    `msgpack:"bufnr" json:"bufnr"`
	ChangedTick int    `msgpack:"changedtick" json:"changedtick"`
	Modified    bool   `msgpack:"modified" json:"modified"`
	LineCount   int    `msgpack:"line_count" json:"line_count"`
	Filetype    string `msgpack:"filetype" json:"filetype"`
	FileFormat  string `msgpack:"fileformat" json:"fileformat"`
	EOL         bool   `msgpack:"eol" json:"eol"`
	// State is what Open did: "loaded" (it was not loaded), "same",
	// "reloaded" (the file changed on disk and the buffer had no unsaved
	// changes).
	State string `msgpack:"state" json:"state"`
}

type openReply struct {
	BufferState
	Err *LuaError `msgpack:"err"`
}

// OpenBuffer loads absPath into a buffer if needed and reconciles it with the
// disk (see buffers.lua: reconcile). absPath must already be confined to the
// workspace. With mustExist, a file that neither exists on disk nor in a
// buffer is RESOURCE_NOT_FOUND.
func (s *Session) OpenBuffer(ctx context.Context, absPath string, mustExist bool) (BufferState, error) {
	var r openReply
	if err := luaOpen.call(ctx, s, &r, absPath, mustExist); err != nil {
		return BufferState{}, err
	}
	if r.Err != nil {
		err := r.Err.APIError()
		err.Message = strings.ReplaceAll(err.Message, s.root.Dir()+string(filepath.Separator), "")
		return BufferState{}, err
	}
	return r.BufferState, nil
}

// Lines returns lines [start, end) of a buffer (0-based; end -1 = last).
func (s *Session) Lines(ctx context.Context, bufnr, start, end int) ([]string, error) {
	var raw [][]byte
	err := s.bounded(ctx, func() error {
		var err error
		raw, err = s.v.BufferLines(toBuffer(bufnr), start, end, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = string(l)
	}
	return out, nil
}
