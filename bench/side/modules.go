package side

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Spec finds a position by text, so it survives edits of the module: the
// first line of File containing Line, at the first Symbol at or after
// where Line starts.
type Spec struct {
	File, Line, Symbol string
}

// Pos is a resolved position: 1-based line, 0-based column (the files used
// are ASCII there, so bytes, UTF-16 and characters agree).
type Pos struct {
	File   string
	Line   int
	Col    int
	Symbol string
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d (%s)", p.File, p.Line, p.Col, p.Symbol) }

// Module is a Go module measured side by side.
type Module struct {
	Name    string // sample, zap, x/tools
	Version string
	Root    string
	Lines   int
	Files   []string // non-test .go files, relative, sorted
	// Decl: a function with callers (references, hover, hierarchies,
	// understand_symbol); Call: a call of it (definition); Iface: an
	// interface (implementations); File: documentSymbol and diagnostics.
	Decl, Call, Iface Pos
	File              string
	// ReadOnly: the module is used in place (std in GOROOT): no edits.
	ReadOnly bool
}

// Modules known to the harness: the bundled sample and two real modules
// from the Go module proxy.
var moduleSpecs = map[string]struct {
	path, version     string
	decl, call, iface Spec
	file              string
	// goroot: the module is the standard library where it is installed
	// ($GOROOT/src, module std), used in place and only read.
	goroot bool
}{
	"sample": {decl: Spec{"orders/orders.go", "func Process(", "Process"}, call: Spec{"main.go", "orders.Process(order)", "Process"},
		iface: Spec{"payment/payment.go", "type Method interface", "Method"}, file: "orders/orders.go"},
	"zap": {path: "go.uber.org/zap", version: "v1.21.0",
		decl:  Spec{"logger.go", "func (log *Logger) check(", "check"},
		call:  Spec{"logger.go", "if ce := log.check(InfoLevel", "check"},
		iface: Spec{"zapcore/core.go", "type Core interface", "Core"}, file: "logger.go"},
	"x/tools": {path: "golang.org/x/tools", version: "v0.30.0",
		decl:  Spec{"go/packages/packages.go", "func defaultDriver(", "defaultDriver"},
		call:  Spec{"go/packages/packages.go", "defaultDriver(&ld.Config", "defaultDriver"},
		iface: Spec{"go/ssa/ssa.go", "type Member interface", "Member"}, file: "go/packages/packages.go"},
	"std": {goroot: true,
		decl:  Spec{"strings/strings.go", "func Cut(", "Cut"},
		call:  Spec{"mime/mediatype.go", "strings.Cut(t, \"/\")", "Cut"},
		iface: Spec{"io/io.go", "type Reader interface", "Reader"}, file: "strings/strings.go"},
}

// ModuleNames lists the modules in a stable order.
var ModuleNames = []string{"sample", "zap", "x/tools", "std"}

// PrepareModule copies the module into dir (the sample from the checkout;
// the others downloaded with `go mod download -json` from the module proxy
// into the module cache, then copied writable), downloads its
// dependencies, and resolves the positions.
func PrepareModule(ctx context.Context, repo, name, dir string) (*Module, error) {
	spec, ok := moduleSpecs[name]
	if !ok {
		return nil, fmt.Errorf("unknown module %q (known: %s)", name, strings.Join(ModuleNames, ", "))
	}
	m := &Module{Name: name, Version: spec.version, Root: filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))}
	src := filepath.Join(repo, "testdata", "samples", "go")
	if spec.goroot {
		// In place: a copy of std elsewhere would be a second std beside
		// GOROOT's. Only reads are measured on it.
		cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOVERSION")
		cmd.Env = Env(repo)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %v", err)
		}
		f := strings.Fields(string(out))
		if len(f) < 2 {
			return nil, fmt.Errorf("go env GOROOT GOVERSION: %q", out)
		}
		m.Root, m.Version, m.ReadOnly = filepath.Join(f[0], "src"), f[1]+" std (GOROOT/src, in place)", true
	} else if spec.path != "" {
		cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", spec.path+"@"+spec.version)
		cmd.Env = Env(repo)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go mod download %s@%s: %v: %s", spec.path, spec.version, err, out)
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return nil, fmt.Errorf("go mod download %s: %s %s", spec.path, info.Error, out)
		}
		src = info.Dir
	} else {
		m.Version = "testdata/samples/go"
	}
	if !spec.goroot {
		if err := copyTree(src, m.Root); err != nil {
			return nil, err
		}
	}
	if spec.path != "" {
		// Both gopls instances then find every dependency in the cache.
		cmd := exec.CommandContext(ctx, "go", "mod", "download")
		cmd.Dir, cmd.Env = m.Root, Env(repo)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go mod download in %s: %v: %s", m.Root, err, out)
		}
	}
	err := filepath.WalkDir(m.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != m.Root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			n, err := countLines(path)
			if err != nil {
				return err
			}
			m.Lines += n
			if !strings.HasSuffix(path, "_test.go") {
				rel, _ := filepath.Rel(m.Root, path)
				m.Files = append(m.Files, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(m.Files)
	if m.Decl, err = resolve(m.Root, spec.decl); err != nil {
		return nil, err
	}
	if m.Call, err = resolve(m.Root, spec.call); err != nil {
		return nil, err
	}
	if m.Iface, err = resolve(m.Root, spec.iface); err != nil {
		return nil, err
	}
	m.File = spec.file
	return m, nil
}

func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(b), "\n"), nil
}

func resolve(root string, s Spec) (Pos, error) {
	f, err := os.Open(filepath.Join(root, s.File))
	if err != nil {
		return Pos{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, s.Line); i >= 0 {
			if j := strings.Index(line[i:], s.Symbol); j >= 0 {
				return Pos{File: s.File, Line: n, Col: i + j, Symbol: s.Symbol}, nil
			}
		}
	}
	return Pos{}, fmt.Errorf("%s: no line with %q", s.File, s.Line)
}

// FirstFunc is the first top-level function declared in rel (its name's
// position), for the first request in a file not opened yet.
func FirstFunc(root, rel string) (Pos, bool) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return Pos{}, false
	}
	for n, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "func ") {
			continue
		}
		rest := line[len("func "):]
		off := len("func ")
		if strings.HasPrefix(rest, "(") {
			end := strings.Index(rest, ") ")
			if end < 0 {
				continue
			}
			off += end + 2
			rest = rest[end+2:]
		}
		name := rest
		if i := strings.IndexAny(name, "([ "); i > 0 {
			name = name[:i]
		} else {
			continue
		}
		if !isASCII(line[:off]) {
			continue
		}
		return Pos{File: rel, Line: n + 1, Col: off, Symbol: name}, true
	}
	return Pos{}, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// copyTree copies src to dst with writable modes (the module cache is
// read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
