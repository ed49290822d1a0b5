// Command nvbridge serves the language servers behind a Neovim session as MCP
// tools for AI agents, and runs single tools for scripts and CI.
//
//	nvbridge [global flags] mcp [--http ADDR] [--token T | --no-auth] [--max-request-bytes N]
//	nvbridge [global flags] call TOOL '{json args}'
//	nvbridge [global flags] tools
//	nvbridge [global flags] demo
//
// Global flags: --root DIR (workspace, default .), --nvim ADDR (attach to a
// running Neovim; $NVIM is used inside Neovim), --nvim-cmd PATH (embedded
// Neovim executable), --timeout DURATION (per LSP request), --log FILE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
	"github.com/nvbridge/nvbridge/workspace"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type globalFlags struct {
	root    string
	addr    string
	nvimCmd string
	timeout time.Duration
	logFile string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var g globalFlags
	fs := flag.NewFlagSet("nvbridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&g.root, "root", ".", "workspace root: tools' paths are relative to it and confined to it")
	fs.StringVar(&g.addr, "nvim", "", "address of a running Neovim to attach to (socket path or host:port); default $NVIM, else an embedded Neovim")
	fs.StringVar(&g.nvimCmd, "nvim-cmd", "", "Neovim executable for the embedded mode (default: nvim on PATH)")
	fs.DurationVar(&g.timeout, "timeout", 30*time.Second, "bound on one language server request")
	fs.StringVar(&g.logFile, "log", "", "write logs to this file (default stderr; never stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: nvbridge [flags] mcp|call|tools|demo ...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	logger, closeLog, err := openLog(g.logFile, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	defer closeLog()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	cmd, rest := fs.Arg(0), fs.Args()[1:]
	switch cmd {
	case "mcp":
		return runMCP(ctx, g, rest, logger, stdout, stderr)
	case "call":
		return runCall(ctx, g, rest, logger, stdout, stderr)
	case "tools":
		return runTools(stdout, stderr)
	case "demo":
		return runDemo(ctx, g, logger, stdout, stderr)
	}
	fmt.Fprintf(stderr, "nvbridge: unknown command %q\n", cmd)
	fs.Usage()
	return 2
}

func openLog(path string, stderr io.Writer) (*log.Logger, func(), error) {
	if path == "" {
		return log.New(stderr, "nvbridge: ", log.LstdFlags), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return log.New(f, "nvbridge: ", log.LstdFlags), func() { f.Close() }, nil
}

// connect opens the Neovim session and the tool environment.
func connect(ctx context.Context, g globalFlags, logger *log.Logger) (*tools.Env, func(), error) {
	root, err := workspace.New(g.root)
	if err != nil {
		return nil, nil, fmt.Errorf("workspace root: %w", err)
	}
	extra, err := nvim.ExtraServersFromEnv()
	if err != nil {
		return nil, nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := nvim.Open(startCtx, nvim.Options{
		Addr: g.addr, UseEnv: true, Root: root, Command: g.nvimCmd, Logf: logger.Printf, ExtraServers: extra,
	})
	if err != nil {
		return nil, nil, err
	}
	client := lsp.NewClient(s)
	client.Timeout = g.timeout
	env := tools.NewEnv(s, client, logger.Printf)
	// Debug sessions end first (their adapters and programs), then Neovim.
	return env, func() { env.Close(); s.Close() }, nil
}

func runTools(stdout, stderr io.Writer) int {
	if err := tools.WriteCatalog(stdout); err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	return 0
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) {
		return 130
	}
	return 1
}
