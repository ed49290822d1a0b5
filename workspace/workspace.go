// Package workspace confines the paths tools receive to one root folder.
package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// Root is an absolute, symlink-free workspace folder.
type Root struct {
	dir string
}

// New resolves dir (made absolute, symlinks evaluated) as a workspace root.
func New(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Root{}, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return Root{}, err
	}
	if !info.IsDir() {
		return Root{}, errors.New(dir + " is not a directory")
	}
	return Root{dir: real}, nil
}

// Dir returns the root's absolute path.
func (r Root) Dir() string { return r.dir }

// Resolve maps a caller's path (relative to the root, or absolute inside it)
// to an absolute path inside the root. It rejects paths that leave the root
// lexically (..) or through a symlink, including a symlink in a parent of a
// file that does not exist yet.
func (r Root) Resolve(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", apierr.New(apierr.InvalidParameter, "file is empty", "pass a path relative to the workspace root, e.g. \"main.go\"")
	}
	if strings.ContainsRune(path, 0) {
		return "", apierr.New(apierr.InvalidParameter, "file contains a NUL byte", "pass a plain path")
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, path)
	}
	abs = filepath.Clean(abs)
	if !r.contains(abs) {
		return "", r.outside(path)
	}
	real, err := evalExisting(abs)
	if err != nil {
		return "", apierr.Errorf(apierr.OperationFailed, "check the path's permissions", "cannot resolve %s: %v", path, err)
	}
	if !r.contains(real) {
		return "", r.outside(path)
	}
	return real, nil
}

// Rel returns abs relative to the root, slash-separated, for results.
func (r Root) Rel(abs string) string {
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// Contains reports whether abs (already cleaned) lies inside the root.
func (r Root) Contains(abs string) bool { return r.contains(filepath.Clean(abs)) }

func (r Root) contains(abs string) bool {
	return abs == r.dir || strings.HasPrefix(abs, r.dir+string(filepath.Separator))
}

func (r Root) outside(path string) error {
	return apierr.Errorf(apierr.InvalidParameter,
		"pass a path inside the workspace root "+r.dir+" (relative paths are resolved against it)",
		"%s is outside the workspace root", path)
}

// evalExisting evaluates symlinks in the longest existing prefix of abs and
// appends the rest, so a not-yet-created file under a symlinked folder is
// judged by where the folder really is.
func evalExisting(abs string) (string, error) {
	rest := ""
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
