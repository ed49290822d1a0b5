// Package lua ships the Lua half of nvbridge inside the binary, so a Neovim
// without the plugin installed still gets the bridge on connect.
package lua

import "embed"

// Modules holds lua/nvbridge/*.lua; the module name of nvbridge/x.lua is
// "nvbridge.x" (init.lua is "nvbridge").
//
//go:embed nvbridge/*.lua
var Modules embed.FS
