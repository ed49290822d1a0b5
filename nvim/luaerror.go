package nvim

import (
	"fmt"

	"github.com/nvbridge/nvbridge/apierr"
)

// LuaError is an error a bridge Lua function returned as data (LuaCATS
// class nvbridge.Error in lua/nvbridge/_meta.lua): {code, message, path?}.
// It is the one shape of errors crossing from Lua, and APIError the one
// decoder: results carry it as their "err" field, nvbridge_done as its
// error argument.
type LuaError struct {
	Code    string `msgpack:"code"`
	Message string `msgpack:"message"`
	Path    string `msgpack:"path,omitempty"`
	// Remediation, when the Lua side knows a better one than the code's.
	Remediation string `msgpack:"remediation,omitempty"`
	// Moved: a CONFLICT because the buffer changed between the read a
	// change was planned on and its apply (nothing else differs).
	Moved bool `msgpack:"moved,omitempty"`
}

// APIError converts e to the error tools return, with the code's
// remediation (OPERATION_FAILED when Lua gave no code).
func (e *LuaError) APIError() *apierr.Error {
	code := apierr.Code(e.Code)
	if code == "" {
		code = apierr.OperationFailed
	}
	remedy := e.Remediation
	if remedy == "" {
		remedy = remediationFor(code)
	}
	return &apierr.Error{Code: code, Message: e.Message, Remediation: remedy}
}

// luaErrorOf reads nvbridge_done's error argument (decoded into any: a
// notification's arguments that fail to decode would close the
// connection).
func luaErrorOf(v any) *apierr.Error {
	m, ok := v.(map[string]any)
	if !ok {
		return (&LuaError{Message: fmt.Sprint(v)}).APIError()
	}
	var e LuaError
	e.Code, _ = m["code"].(string)
	e.Message, _ = m["message"].(string)
	e.Path, _ = m["path"].(string)
	e.Remediation, _ = m["remediation"].(string)
	return e.APIError()
}

func remediationFor(code apierr.Code) string {
	switch code {
	case apierr.Unsupported:
		return "check which language server serves this file type (get_buffer_info lists the attached servers) and that it is installed"
	case apierr.Timeout:
		return "retry; the language server may still be loading the workspace"
	case apierr.Conflict:
		return "save or discard the buffer's changes in Neovim (save_buffer / discard_buffer), then retry"
	case apierr.ResourceNotFound:
		return "check the path (relative to the workspace root)"
	}
	return "retry; if it persists, check the language server's log"
}
