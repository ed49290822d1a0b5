// Command nvbridge serves the language servers behind a Neovim session as MCP
// tools for AI agents, and runs single tools for scripts and CI.
//
//	nvbridge [global flags] mcp [--http ADDR] [--token T | --no-auth] [--max-request-bytes N]
//	nvbridge [global flags] call [--no-daemon] TOOL '{json args}'
//	nvbridge [global flags] tools
//	nvbridge [global flags] demo
//	nvbridge [global flags] daemon status|stop
//	nvbridge version
//
// Global flags (before or after the command): --root DIR (workspace; default
// the attached Neovim's working directory, else .), --nvim ADDR (attach to a
// running Neovim; $NVIM is used inside Neovim), --nvim-cmd PATH (embedded
// Neovim executable), --timeout DURATION (per LSP request), --log FILE;
// the policy on sensitive files: --deny GLOB, --allow-sensitive GLOB
// (both repeatable), --allow-hardlinks; besides the flags only the user's
// config file ($XDG_CONFIG_HOME/nvbridge/config.json) may allow, and a
// project's .nvbridge.json only adds denies.
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
	"runtime"
	"strings"
	"syscall"
	"time"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
	"github.com/nvbridge/nvbridge/websearch"
	"github.com/nvbridge/nvbridge/workspace"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type globalFlags struct {
	root    string // "" until given: Neovim's working directory when attached, else "."
	addr    string
	nvimCmd string
	timeout time.Duration
	logFile string
	policy  workspace.Config
	// search configures the web_search provider (flags here, keys from
	// the environment).
	search websearch.Config
	// maxEdits and maxDiffBytes bound one change (edit.Engine's limits).
	maxEdits, maxDiffBytes int
}

// globs is a repeatable flag of glob patterns.
type globs struct{ list *[]string }

func (g globs) String() string {
	if g.list == nil {
		return ""
	}
	return strings.Join(*g.list, ",")
}

func (g globs) Set(v string) error {
	*g.list = append(*g.list, v)
	return nil
}

// register defines the global flags on fs. They are accepted before the
// subcommand and after it (nvbridge mcp --root X): each subcommand's flag
// set registers them too, with what was parsed so far as the default.
func (g *globalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.root, "root", g.root, "workspace root: tools' paths are relative to it and confined to it (default: Neovim's working directory when attached, else .)")
	fs.StringVar(&g.addr, "nvim", g.addr, "address of a running Neovim to attach to (socket path or host:port), or auto: the Neovim with the nvbridge plugin whose working directory contains the root; default $NVIM, else an embedded Neovim")
	fs.StringVar(&g.nvimCmd, "nvim-cmd", g.nvimCmd, "Neovim executable for the embedded mode (default: nvim on PATH, the checkout's .deps/bin first)")
	fs.DurationVar(&g.timeout, "timeout", g.timeout, "bound on one language server request")
	fs.StringVar(&g.logFile, "log", g.logFile, "write logs to this file (default stderr; never stdout)")
	fs.Var(globs{&g.policy.Deny}, "deny", "also treat files matching GLOB as sensitive: never read, shown or changed (repeatable; see "+workspace.ProjectFile+")")
	fs.Var(globs{&g.policy.Allow}, "allow-sensitive", "let nvbridge use files matching GLOB although the deny list covers them, e.g. --allow-sensitive .env.example (repeatable; also \"allow\" in the user config file $XDG_CONFIG_HOME/nvbridge/config.json, never in a project's "+workspace.ProjectFile+")")
	fs.BoolVar(&g.policy.AllowHardlinks, "allow-hardlinks", g.policy.AllowHardlinks, "write to files that have other hard links (refused by default: another name may be outside the root)")
	fs.IntVar(&g.maxEdits, "max-edits", g.maxEdits, "refuse a change of more edits than this (a replace_in_buffer of more matches), before computing it; 0: no limit")
	fs.IntVar(&g.maxDiffBytes, "max-diff-bytes", g.maxDiffBytes, "refuse to keep a preview whose diff is larger than this many bytes (applying without a preview still works); 0: no limit")
	fs.StringVar(&g.search.Provider, "search-provider", g.search.Provider, "web_search provider: searxng or brave (default: whichever is configured; web_search is listed only when one is)")
	fs.StringVar(&g.search.SearXNGURL, "searxng-url", g.search.SearXNGURL, "base URL of a SearXNG instance with format=json enabled, for web_search (default $"+websearch.EnvSearXNGURL+"); Brave Search reads its key from $"+websearch.EnvBraveKey)
}

// searchClient is the configured web_search provider (nil when none is).
func (g globalFlags) searchClient() (*websearch.Client, error) {
	c, err := websearch.New(g.search.FromEnv())
	if err != nil {
		return nil, fmt.Errorf("web search: %w", err)
	}
	return c, nil
}

const mainUsage = `usage: nvbridge [global flags] COMMAND [flags] [args]

Commands:
  mcp       serve MCP over stdio (or streamable HTTP with --http)
  call      run one tool and print its JSON result (reuses a warm daemon)
  status    what works now: Neovim, language servers, debug adapters, health (call get_status)
  tools     print every tool with its JSON input schema
  demo      run a few real tools on the workspace (make demo)
  daemon    status or stop the warm daemon that call uses
  version   print the version and the Neovim and servers nvbridge finds
  help      help on a command (nvbridge help call)

Global flags may also follow the command (nvbridge mcp --root DIR).
`

func main() {
	// No heap profile is ever taken of nvbridge (--cpuprofile is the only
	// profile it writes): the runtime's sampling of allocations for one
	// held its bucket table and records, 1.5 MB after a rename over the
	// standard library.
	runtime.MemProfileRate = 0
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	g := globalFlags{timeout: 30 * time.Second, maxEdits: edit.DefaultMaxEdits, maxDiffBytes: edit.DefaultMaxDiffBytes}
	fs := flag.NewFlagSet("nvbridge", flag.ContinueOnError)
	g.register(fs)
	showVersion := fs.Bool("version", false, "print the version and what nvbridge finds, then exit")
	rest, code, ok := parseFlags(fs, args, mainUsage, stdout, stderr)
	if !ok {
		return code
	}
	if *showVersion {
		return runVersion(stdout)
	}
	if len(rest) == 0 {
		printUsage(stderr, mainUsage, fs)
		return 2
	}
	cmd, rest := rest[0], rest[1:]
	if cmd == "help" {
		return runHelp(rest, g, stdout, stderr)
	}
	if cmd == "version" {
		return runVersion(stdout)
	}
	// The private Neovim and servers of `make deps`, when this binary runs
	// from (or was installed from) a checkout.
	usePrivateDeps()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	switch cmd {
	case "mcp":
		return runMCP(ctx, g, rest, stdout, stderr)
	case "call":
		return runCall(ctx, g, rest, stdout, stderr)
	case "status":
		// get_status through call (and its warm daemon): the same answer
		// an agent gets.
		return runCall(ctx, g, append(rest, "get_status", "{}"), stdout, stderr)
	case "tools":
		return runTools(g, rest, stdout, stderr)
	case "demo":
		return runDemo(ctx, g, rest, stdout, stderr)
	case "daemon":
		return runDaemon(ctx, g, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "nvbridge: unknown command %q\n", cmd)
	printUsage(stderr, mainUsage, fs)
	return 2
}

// parseFlags parses args with fs, allowing flags between the positional
// arguments too. --help prints usage and the flags to stdout (ok false,
// code 0); a bad flag is reported on stderr (ok false, code 2).
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, usage, fs)
			return nil, 0, false
		}
		if err != nil {
			fmt.Fprintf(stderr, "run 'nvbridge help %s' for usage\n", helpTopic(fs))
			return nil, 2, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, true
		}
		// The first positional argument of the top level is the command:
		// the rest belongs to it.
		if fs.Name() == "nvbridge" {
			return args, 0, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func helpTopic(fs *flag.FlagSet) string {
	if fs.Name() == "nvbridge" {
		return ""
	}
	return fs.Name()
}

func printUsage(w io.Writer, usage string, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// runHelp prints a command's help (nvbridge help call), exit 0.
func runHelp(args []string, g globalFlags, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fs := flag.NewFlagSet("nvbridge", flag.ContinueOnError)
		g.register(fs)
		fs.Bool("version", false, "print the version and what nvbridge finds, then exit")
		printUsage(stdout, mainUsage, fs)
		return 0
	}
	switch args[0] {
	case "status":
		fmt.Fprintln(stdout, "usage: nvbridge [global flags] status [--no-daemon]\n\nPrints get_status as JSON: Neovim, each language server's state, the servers installed,\nthe debug adapters, the mode and the overall health with remediations.")
		return 0
	case "mcp", "call", "tools", "demo", "daemon":
		return run([]string{args[0], "--help"}, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "usage: nvbridge version\n\nPrints nvbridge's version and the Neovim and language servers it finds.")
		return 0
	}
	fmt.Fprintf(stderr, "nvbridge: no help on %q\n", args[0])
	return 2
}

// openLog opens the log; recovered panics (any goroutine, any tool call)
// go to it too.
func openLog(path string, stderr io.Writer) (*log.Logger, func(), error) {
	if path == "" {
		l := log.New(stderr, "nvbridge: ", log.LstdFlags)
		safego.SetLogf(l.Printf)
		return l, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	l := log.New(f, "nvbridge: ", log.LstdFlags)
	safego.SetLogf(l.Printf)
	return l, func() { f.Close() }, nil
}

// target resolves where the tools work: the Neovim address ("" for an
// embedded Neovim; $NVIM when --nvim is not given) and the workspace root
// (--root, else the attached Neovim's working directory, else ".").
func (g globalFlags) target(ctx context.Context) (root, addr string) {
	addr = g.addr
	if addr == "" {
		addr = os.Getenv("NVIM")
	}
	root = g.root
	if root == "" {
		root = "."
		if addr != "" {
			if cwd, err := neovimCwd(ctx, addr); err == nil {
				root = cwd
			} // else nvim.Open reports the address
		}
	}
	return root, addr
}

// neovimCwd asks the Neovim at addr for its working directory (getcwd()).
func neovimCwd(ctx context.Context, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := gonvim.Dial(addr, gonvim.DialContext(ctx), gonvim.DialLogf(func(string, ...any) {}))
	if err != nil {
		return "", err
	}
	defer v.Close()
	var cwd string
	done := make(chan error, 1)
	safego.Go("asking Neovim for its directory", func() { done <- v.Call("getcwd", &cwd) }, func(err error) { done <- err })
	select {
	case err := <-done:
		return cwd, err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// policyConfig is the policy the user gives: the flags and the user's own
// config file (read by workspace.NewWith). Without a home folder there is
// no such file.
func (g globalFlags) policyConfig() workspace.Config {
	cfg := g.policy
	cfg.UserFile, _ = workspace.UserConfigFile()
	return cfg
}

// connect opens the Neovim session and the tool environment.
func connect(ctx context.Context, g globalFlags, logger *log.Logger) (*tools.Env, func(), error) {
	if g.addr == "auto" {
		root := g.root
		if root == "" {
			root = "."
		}
		addr, err := discoverNvim(root) // auto.go
		if err != nil {
			return nil, nil, err
		}
		g.addr = addr
	}
	rootDir, addr := g.target(ctx)
	root, err := workspace.NewWith(rootDir, g.policyConfig())
	if err != nil {
		return nil, nil, fmt.Errorf("workspace root: %w", err)
	}
	for _, w := range root.Policy().Warnings() { // get_status shows them too
		logger.Printf("policy: %s; %s", w.Reason, w.Remediation)
	}
	extra, err := nvim.ExtraServersFromEnv()
	if err != nil {
		return nil, nil, err
	}
	search, err := g.searchClient()
	if err != nil {
		return nil, nil, err
	}
	installTestFaults()
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	opts := nvim.Options{
		Addr: addr, UseEnv: true, Root: root, Command: g.nvimCmd, Logf: logger.Printf, ExtraServers: extra,
		ParserDir: parserDir(),
	}
	if g.logFile != "" {
		// The log file gets every RPC and LSP exchange as it happens.
		opts.TraceLogf = logger.Printf
	}
	s, err := nvim.Open(startCtx, opts)
	if err != nil {
		return nil, nil, err
	}
	client := lsp.NewClient(s)
	client.Timeout = g.timeout
	env := tools.NewEnv(s, client, logger.Printf)
	env.Search = search
	env.Edit.MaxEdits, env.Edit.MaxDiffBytes = g.maxEdits, g.maxDiffBytes
	for _, rec := range env.Edit.Recovered { // get_status shows them too
		logger.Printf("an interrupted change (%s, started %s by process %d) was %s: %+v", rec.ID, rec.Started.Format(time.RFC3339), rec.PID, rec.Outcome, rec.Files)
	}
	// Debug sessions end first (their adapters and programs), then Neovim.
	return env, func() { env.Close(); s.Close() }, nil
}

const toolsUsage = `usage: nvbridge tools

Prints every tool as JSON: name, description and input schema.
`

func runTools(g globalFlags, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	g.register(fs)
	rest, code, ok := parseFlags(fs, args, toolsUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "nvbridge tools: unexpected argument %q\n", rest[0])
		return 2
	}
	search, err := g.searchClient()
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 2
	}
	if err := tools.WriteCatalogFor(stdout, &tools.Env{Search: search}); err != nil {
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
