// Command sidebyside prints find_references through nvbridge next to the
// same request sent straight to gopls, with their ratio, plus the trivial
// Go -> Neovim round trip:
//
//	go run ./bench/cmd/sidebyside [-benchtime 2s]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/nvbridge/nvbridge/bench"
)

func main() {
	testing.Init()
	benchtime := flag.Duration("benchtime", 0, "time per measurement (default: the testing package's 1s)")
	flag.Parse()
	if *benchtime > 0 {
		if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	ctx := context.Background()
	f, err := bench.Setup(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
	defer f.Close()

	measure := func(name string, op func() error) bench.Result {
		var failure error
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				if err := op(); err != nil {
					failure = err
					b.FailNow()
				}
			}
		})
		if failure != nil {
			fmt.Fprintf(os.Stderr, "sidebyside: %s: %v\n", name, failure)
			f.Close()
			os.Exit(1)
		}
		return bench.Result{Name: name, NsPerOp: float64(r.T.Nanoseconds()) / float64(r.N), N: r.N}
	}
	refs := func(run func(context.Context) (int, error)) func() error {
		return func() error {
			n, err := run(ctx)
			if err == nil && n != bench.WantReferences {
				err = fmt.Errorf("%d references, want %d", n, bench.WantReferences)
			}
			return err
		}
	}
	results := []bench.Result{
		measure("references direct to gopls", refs(f.ReferencesDirect)),
		measure("references via Neovim (request)", refs(f.ReferencesViaNeovim)),
		measure("find_references (nvbridge)", refs(f.ReferencesNvbridge)),
	}
	fmt.Print(bench.Report(results, "references direct to gopls"))
	fmt.Print(bench.Report([]bench.Result{measure("Go->Neovim round trip (return 1)", func() error { return f.RoundTrip(ctx) })}, ""))
}
