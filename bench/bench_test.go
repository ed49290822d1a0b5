package bench_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/bench"
)

// One fixture per test binary: a benchmark function runs several times
// (b.N = 1, then larger), and starting Neovim and gopls each time would
// dominate the run.
var (
	fixtureOnce sync.Once
	fixture     *bench.Fixture
	fixtureErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != nil {
		fixture.Close()
	}
	os.Exit(code)
}

func getFixture(tb testing.TB) *bench.Fixture {
	tb.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = bench.Setup(context.Background()) })
	if fixtureErr != nil {
		tb.Fatal(fixtureErr)
	}
	return fixture
}

// TestFixture checks that every measured operation answers correctly, so a
// benchmark never times an error.
func TestFixture(t *testing.T) {
	f := getFixture(t)
	ctx := context.Background()
	if err := f.RoundTrip(ctx); err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func(context.Context) (int, error){
		"nvbridge": f.ReferencesNvbridge, "via Neovim": f.ReferencesViaNeovim, "direct": f.ReferencesDirect,
	} {
		n, err := run(ctx)
		if err != nil || n != bench.WantReferences {
			t.Errorf("%s: %d references, %v; want %d", name, n, err, bench.WantReferences)
		}
	}
}

// BenchmarkRoundTrip: nvim_exec_lua("return 1") from Go.
func BenchmarkRoundTrip(b *testing.B) {
	f := getFixture(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := f.RoundTrip(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func benchReferences(b *testing.B, run func(context.Context) (int, error)) {
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		n, err := run(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n != bench.WantReferences {
			b.Fatalf("%d references, want %d", n, bench.WantReferences)
		}
	}
}

// BenchmarkReferencesNvbridge: find_references' domain function (reconcile,
// locate, request through Neovim, group with source lines).
func BenchmarkReferencesNvbridge(b *testing.B) {
	benchReferences(b, getFixture(b).ReferencesNvbridge)
}

// BenchmarkReferencesViaNeovim: the bare request through Neovim's client.
func BenchmarkReferencesViaNeovim(b *testing.B) {
	benchReferences(b, getFixture(b).ReferencesViaNeovim)
}

// BenchmarkReferencesDirectGopls: the same request straight to gopls.
func BenchmarkReferencesDirectGopls(b *testing.B) {
	benchReferences(b, getFixture(b).ReferencesDirect)
}
