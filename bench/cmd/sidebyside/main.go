// Command sidebyside measures every read tool through nvbridge (a real MCP
// client session over stdio with the built binary) next to the same LSP
// requests sent straight to gopls, in interleaved rounds, on the bundled
// sample and on real modules from the Go module proxy; plus cold starts
// (`nvbridge call` vs `gopls definition`) and the first call on a buffer a
// user's Neovim opened before nvbridge attached. It prints a table and
// writes the raw figures as JSON for `make bench-report`:
//
//	go run ./bench/cmd/sidebyside [-rounds 20] [-modules sample,zap,x/tools] [-json FILE]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/bench"
	"github.com/nvbridge/nvbridge/bench/side"
)

func main() {
	rounds := flag.Int("rounds", 20, "interleaved rounds per op (a first-request round needs a new file)")
	modules := flag.String("modules", "sample", "comma-separated: "+strings.Join(side.ModuleNames, ","))
	out := flag.String("json", "", "write the figures as JSON to this file")
	coldRuns := flag.Int("cold", 3, "cold start runs per module (0: skip)")
	attachedRuns := flag.Int("attached", 3, "runs of the first call on a buffer opened before attaching (0: skip)")
	edits := flag.Int("edits", 0, "rounds of verified edits per module (a one-line apply with its complete delta, a check preview, gopls straight on the same change; 0: skip)")
	editsAttached := flag.Bool("edits-attached", true, "with -edits: also the apply in a user's Neovim whose gopls runs on its defaults (vim.lsp.start, no settings), interleaved with its floor (gopls straight, its defaults, pulled)")
	editsEmbedded := flag.Bool("edits-embedded", true, "with -edits: the apply and the check preview of nvbridge's embedded Neovim, interleaved with gopls straight (false: only -edits-attached)")
	bigEdit := flag.Int("bigedit", 0, "rounds of 1,000 edits in a 100,000-line file through MCP against Neovim's apply_workspace_edit (0: skip)")
	responsive := flag.Int("responsive", 0, "windows (each kind, 3 s) of the user's Neovim idle and under agent load, attached, per module (0: skip)")
	skipReads := flag.Bool("skip-reads", false, "skip the read ops (only -edits, -cold, -attached)")
	agentLSP := flag.String("agent-lsp", side.DefaultAgentLSP(), "the peer agent-lsp's binary, measured beside on the shared ops (\"\": not measured)")
	editsBaseline := flag.String("edits-baseline", "", "with -edits: a checkout of another revision (e.g. git archive main | tar -x -C DIR) whose nvbridge's apply is interleaved with this one's, on a copy of the module")
	phases := flag.Bool("phases", false, "run nvbridge with --log and split each call's time by what it did (writing the log slows it: for where the time goes, not how much)")
	flag.Parse()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	x := extra{agentLSP: *agentLSP, edits: *edits, editsAttached: *editsAttached, editsEmbedded: *editsEmbedded, skipReads: *skipReads, bigEdit: *bigEdit, responsive: *responsive, editsBaseline: *editsBaseline}
	if err := run(*rounds, strings.Split(*modules, ","), *out, *coldRuns, *attachedRuns, *phases, x, logf); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// extra: the runs beside the read ops.
type extra struct {
	agentLSP      string
	edits         int
	editsAttached bool
	editsEmbedded bool
	skipReads     bool
	bigEdit       int
	responsive    int
	editsBaseline string
}

func run(rounds int, modules []string, out string, coldRuns, attachedRuns int, phases bool, x extra, logf func(string, ...any)) error {
	ctx := context.Background()
	repo, err := bench.RepoRoot()
	if err != nil {
		return err
	}
	for _, kv := range side.Env(repo) {
		if strings.HasPrefix(kv, "PATH=") {
			os.Setenv("PATH", strings.TrimPrefix(kv, "PATH="))
		}
	}
	tmp, err := os.MkdirTemp("", "nvbridge-side-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	binary := filepath.Join(tmp, "nvbridge")
	build := exec.Command("go", "build", "-o", binary, "./cmd/nvbridge")
	build.Dir, build.Env = repo, side.Env(repo)
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, b)
	}
	rep := side.Report{Started: time.Now().UTC(), Rounds: rounds, Machine: side.Machine(), Versions: side.Versions(repo)}
	rep.Command = "go run ./bench/cmd/sidebyside " + strings.Join(os.Args[1:], " ")
	o := side.Options{Binary: binary, Repo: repo, Rounds: rounds, Logf: logf, Phases: phases, AgentLSP: x.agentLSP}
	if x.editsBaseline != "" {
		o.BaselineRepo, o.BaselineBinary = x.editsBaseline, filepath.Join(tmp, "nvbridge-baseline")
		build := exec.Command("go", "build", "-o", o.BaselineBinary, "./cmd/nvbridge")
		build.Dir, build.Env = o.BaselineRepo, side.Env(o.BaselineRepo)
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build (baseline): %v: %s", err, b)
		}
	}
	for _, name := range modules {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		dir := filepath.Join(tmp, "m")
		m, err := side.PrepareModule(ctx, repo, name, dir)
		if err != nil {
			return err
		}
		res := &side.ModuleResult{Module: m.Name, Version: m.Version, Lines: m.Lines, Files: len(m.Files)}
		if !x.skipReads {
			if res, err = side.RunModule(ctx, m, o); err != nil {
				return err
			}
		}
		if x.edits > 0 && !m.ReadOnly {
			if res.Edits, err = side.Edits(ctx, o, m, x.edits, x.editsEmbedded, x.editsAttached); err != nil {
				return err
			}
			fmt.Print(side.EditsTable(m, res.Edits))
		}
		if x.responsive > 0 && name != "sample" {
			if res.Responsive, err = side.Responsive(ctx, o, m, x.responsive, 3*time.Second); err != nil {
				return err
			}
			fmt.Print(side.ResponsiveTable(m, res.Responsive))
		}
		if coldRuns > 0 {
			if res.Cold, err = side.Cold(ctx, o, m, coldRuns); err != nil {
				return err
			}
		}
		if attachedRuns > 0 && name == "sample" {
			if res.Attached, err = side.AttachedFirstCall(ctx, o, m, attachedRuns); err != nil {
				return err
			}
		}
		rep.Modules = append(rep.Modules, *res)
		if !x.skipReads {
			fmt.Print(side.Table(res))
		}
		os.RemoveAll(dir)
		runtime.GC()
	}
	if x.bigEdit > 0 {
		if rep.BigEdit, err = side.BigEdit(ctx, o, x.bigEdit); err != nil {
			return err
		}
		fmt.Print(side.BigEditTable(rep.BigEdit))
	}
	rep.Finished = time.Now().UTC()
	if out != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return err
		}
		logf("wrote %s", out)
	}
	return nil
}
