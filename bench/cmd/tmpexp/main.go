package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/bench"
	"github.com/nvbridge/nvbridge/bench/side"
)

func main() {
	ctx := context.Background()
	repo, _ := bench.RepoRoot()
	for _, kv := range side.Env(repo) {
		if strings.HasPrefix(kv, "PATH=") {
			os.Setenv("PATH", strings.TrimPrefix(kv, "PATH="))
		}
	}
	tmp, _ := os.MkdirTemp("", "exp-")
	defer os.RemoveAll(tmp)
	m, err := side.PrepareModule(ctx, repo, "zap", filepath.Join(tmp, "m"))
	if err != nil {
		panic(err)
	}
	st, err := side.StartStraight(ctx, m.Root)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	if err := st.WaitLoaded(ctx); err != nil {
		panic(err)
	}
	st.Open(ctx, m.File)
	text, _ := os.ReadFile(filepath.Join(m.Root, m.File))
	lines := strings.Split(string(text), "\n")
	ln := 266
	orig := lines[ln-1]
	v := 1
	for _, gap := range []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond, 1000 * time.Millisecond, 0, 1000 * time.Millisecond} {
		var xs []string
		for i := 0; i < 8; i++ {
			v++
			l := append([]string(nil), lines...)
			l[ln-1] = fmt.Sprintf("%s // exp %d", orig, v)
			pub, done, err := st.ChangeAndWait(ctx, m.File, strings.Join(l, "\n"), v)
			if err != nil {
				panic(err)
			}
			xs = append(xs, fmt.Sprintf("%.0f/%.0f", pub, done))
			time.Sleep(gap)
		}
		fmt.Println("gap", gap, xs)
	}
}
