// Command readsab measures the warm read tools of two (or more) builds of
// nvbridge on one module, interleaved call by call, each with its own
// Neovim and gopls: an A/B of a change to the read path, with each build's
// CPU (nvbridge's process, its Neovim) beside the wall time.
//
//	go run ./bench/cmd/readsab [-module zap] [-rounds 200] [-gap 50ms] -baseline DIR
//
// -gap pauses after each call, as an agent does between its calls (each
// call's CPU then counts its process's over the pause too): back to back,
// the Go runtime never idles, and what an idle process pays to wake for a
// call is not measured.
//
// DIR is a checkout of the other revision (git worktree, or git archive
// main | tar -x -C DIR with a .deps link); this checkout is the second
// build, "this".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/bench"
	"github.com/nvbridge/nvbridge/bench/side"
)

func main() {
	module := flag.String("module", "zap", "the module: sample, zap, x/tools")
	rounds := flag.Int("rounds", 200, "interleaved rounds")
	baseline := flag.String("baseline", "", "a checkout of the baseline revision (required)")
	ops := flag.String("ops", "", "comma-separated: only these ops (mcp_ping, find_definition, find_references, hover, calls_incoming_depth1, rename_preview, first_request_new_file: the first request in a file not opened yet, one a round, as many rounds as the module has files)")
	gap := flag.Duration("gap", 0, "a pause after each call (each call's CPU counts the pause's): calls spaced as an agent spaces them, not back to back")
	flag.Parse()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	if err := run(*module, *rounds, *baseline, *ops, *gap, logf); err != nil {
		fmt.Fprintln(os.Stderr, "readsab:", err)
		os.Exit(1)
	}
}

func run(module string, rounds int, baseline, ops string, gap time.Duration, logf func(string, ...any)) error {
	if baseline == "" {
		return fmt.Errorf("-baseline DIR is required")
	}
	ctx := context.Background()
	repo, err := bench.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "nvbridge-readsab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	builds := []side.ABBuild{{Name: "baseline", Repo: baseline}, {Name: "this", Repo: repo}}
	for i := range builds {
		builds[i].Binary = filepath.Join(tmp, "nvbridge-"+builds[i].Name)
		cmd := exec.Command("go", "build", "-o", builds[i].Binary, "./cmd/nvbridge")
		cmd.Dir, cmd.Env = builds[i].Repo, side.Env(builds[i].Repo)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build (%s): %v: %s", builds[i].Name, err, b)
		}
	}
	m, err := side.PrepareModule(ctx, repo, module, filepath.Join(tmp, "m"))
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	logf("load average at start: %s", load)
	var only []string
	if ops != "" {
		only = strings.Split(ops, ",")
	}
	figures, err := side.ReadsAB(ctx, m, builds, rounds, only, gap, logf)
	if err != nil {
		return err
	}
	load, _ = os.ReadFile("/proc/loadavg")
	logf("load average at end: %s", load)
	fmt.Print(side.ABTable(figures, len(builds)))
	return nil
}
