// Package workspace confines the paths tools receive to one root folder and
// holds the policy on sensitive files (policy.go): every layer asks here
// whether a path may be read, shown or changed.
package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nvbridge/nvbridge/apierr"
)

// Root is an absolute, symlink-free workspace folder and its policy.
type Root struct {
	dir    string
	policy *Policy
}

// New resolves dir (made absolute, symlinks evaluated) as a workspace root,
// with the default policy plus the project file's denies (.nvbridge.json)
// if any.
func New(dir string) (Root, error) { return NewWith(dir, Config{}) }

// NewWith is New with the policy the user gives (flags, and their config
// file when cfg.UserFile is set): the only sources that may allow.
func NewWith(dir string, cfg Config) (Root, error) {
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
	p, err := loadPolicy(real, cfg)
	if err != nil {
		return Root{}, err
	}
	return Root{dir: real, policy: p}, nil
}

// Dir returns the root's absolute path.
func (r Root) Dir() string { return r.dir }

// Resolve maps a caller's path (relative to the root, or absolute inside it)
// to the absolute real path of the file it names, inside the root. The path
// is resolved as the kernel would open it: every symlink is followed, a
// dangling one too (creating it would create its target), ".." applies
// after the symlinks before it, and a missing tail is kept as written. It
// refuses a path that leaves the root lexically or by any symlink
// (INVALID_PARAMETER) and a sensitive file the policy denies
// (PRECONDITION_FAILED).
//
// Resolve judges the file system as it is now: code that writes, creates,
// renames or deletes checks again at that moment (CheckUnchanged, and
// apply.lua's guard in the same Neovim call as the write).
func (r Root) Resolve(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", apierr.New(apierr.InvalidParameter, "file is empty", "pass a path relative to the workspace root, e.g. \"main.go\"")
	}
	if strings.ContainsRune(path, 0) {
		return "", apierr.New(apierr.InvalidParameter, "file contains a NUL byte", "pass a plain path")
	}
	written := path
	if !filepath.IsAbs(written) {
		written = r.dir + string(filepath.Separator) + path
	}
	if !r.contains(filepath.Clean(written)) {
		return "", r.outside(path, "")
	}
	real, err := RealPath(written)
	if err != nil {
		return "", apierr.Errorf(apierr.InvalidParameter, "check the path and its symlinks", "cannot resolve %s: %v", path, err)
	}
	if !r.contains(real) {
		return "", r.outside(path, real)
	}
	// The name as written counts too: a link named .env is refused even
	// when it points at an ordinary file.
	for _, p := range []string{filepath.Clean(written), real} {
		if err := r.checkPolicy(path, p); err != nil {
			return "", err
		}
	}
	return real, nil
}

// CheckUnchanged re-resolves abs, a path Resolve returned earlier, right
// before bytes are written to, created at, renamed to or deleted from it:
// it refuses when abs now resolves elsewhere (a folder or file replaced by
// a symlink since) or leaves the root, or when the policy denies it.
func (r Root) CheckUnchanged(abs string) error {
	real, err := r.Resolve(abs)
	if err != nil {
		return err
	}
	if real != abs {
		return apierr.Errorf(apierr.Conflict,
			"a symlink was created or changed on this path since the preview (nothing was changed): check it, then preview the change again",
			"%s now resolves to %s", r.Rel(abs), r.Rel(real))
	}
	return nil
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

func (r Root) outside(path, real string) error {
	msg := path + " is outside the workspace root"
	if real != "" {
		msg = path + " resolves (through a symlink) to " + real + ", outside the workspace root"
	}
	return apierr.New(apierr.InvalidParameter, msg,
		"pass a path inside the workspace root "+r.dir+" (relative paths are resolved against it); nvbridge never follows a symlink out of it")
}

// maxLinks bounds the symlinks one resolution follows (Linux's own bound).
const maxLinks = 40

// RealPath resolves abs (absolute) as the kernel would when opening or
// creating it: every symlink, including a dangling last one, is followed;
// ".." applies to the folder reached so far (after symlinks); components
// that do not exist are kept as written. The result is absolute and clean.
func RealPath(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", errors.New("not an absolute path")
	}
	if real, ok := kernelRealPath(abs); ok {
		return real, nil
	}
	return walkRealPath(abs)
}

// walkRealPath is RealPath component by component: every component
// lstat'ed, each symlink read and followed.
func walkRealPath(abs string) (string, error) {
	sep := string(filepath.Separator)
	todo := strings.Split(abs, sep)
	resolved := sep
	links := 0
	missing := false // a component did not exist: the rest cannot be links
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		if missing {
			resolved = next
			continue
		}
		info, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				missing = true
				resolved = next
				continue
			}
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = sep
		}
		todo = append(strings.Split(target, sep), todo...)
	}
	return resolved, nil
}
