package nvim

import "github.com/neovim/go-client/nvim"

// toBuffer converts a buffer number to go-client's handle type. Buffer
// numbers are always decoded as int first: decoding a Lua integer straight
// into nvim.Buffer silently yields Buffer(0), the current buffer.
func toBuffer(bufnr int) nvim.Buffer { return nvim.Buffer(bufnr) }
