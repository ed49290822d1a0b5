package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// Commit is one commit that touched a path.
type Commit struct {
	Hash    string `json:"hash"`
	Date    string `json:"date"`
	Author  string `json:"author"`
	Subject string `json:"subject"`
	// Files are the files under the path it changed (relative to the
	// root).
	Files []string `json:"files"`
}

// History is what changed recently under a path: its last commits and the
// files with changes not committed yet.
type History struct {
	Commits []Commit `json:"commits"`
	// Uncommitted lists the files under the path the working tree
	// changes (git status: modified, added, deleted, untracked), each
	// with git's two-letter status ("M ", "??").
	Uncommitted []string `json:"uncommitted"`
	// More: more commits touched the path than are listed.
	More bool `json:"more,omitempty"`
}

// GitHistory reads the last max commits touching rel (a path relative to
// the root, "." for all) with git log, and git status for the files not
// committed. PRECONDITION_FAILED when the root is not in a git work tree
// or git is missing.
func (r Root) GitHistory(ctx context.Context, rel string, max int) (History, error) {
	if rel == "" {
		rel = "."
	}
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.dir, "-c", "core.quotepath=off"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, apierr.Errorf(apierr.PreconditionFailed, "history needs the workspace in a git work tree, and git on PATH",
				"git %s: %s", args[0], msg)
		}
		return out, nil
	}
	// Paths as the root sees them: log --relative; status gives them from
	// the repository's top, which is the root's prefix above it.
	prefix, err := git("rev-parse", "--show-prefix")
	if err != nil {
		return History{}, err
	}
	top := strings.TrimSpace(string(prefix))
	raw, err := git("log", "--relative", fmt.Sprintf("--max-count=%d", max+1), "--date=short",
		"--pretty=format:%x1e%h%x1f%ad%x1f%an%x1f%s", "--name-only", "--", rel)
	if err != nil {
		return History{}, err
	}
	out := History{Commits: []Commit{}, Uncommitted: []string{}}
	for _, rec := range strings.Split(string(raw), "\x1e") {
		rec = strings.TrimSpace(rec)
		if rec == "" {
			continue
		}
		head, files, _ := strings.Cut(rec, "\n")
		f := strings.Split(head, "\x1f")
		if len(f) != 4 {
			continue
		}
		c := Commit{Hash: f[0], Date: f[1], Author: f[2], Subject: f[3], Files: []string{}}
		for _, file := range strings.Split(files, "\n") {
			if file = strings.TrimSpace(file); file != "" {
				c.Files = append(c.Files, file)
			}
		}
		out.Commits = append(out.Commits, c)
	}
	if len(out.Commits) > max {
		out.Commits, out.More = out.Commits[:max], true
	}
	status, err := git("status", "--porcelain=v1", "--untracked-files=all", "--", rel)
	if err != nil {
		return History{}, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if len(line) > 3 {
			out.Uncommitted = append(out.Uncommitted, line[:2]+" "+strings.TrimPrefix(line[3:], top))
		}
	}
	return out, nil
}
