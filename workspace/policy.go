package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/memo"
)

// ProjectFile is the policy file nvbridge reads at the workspace root.
const ProjectFile = ".nvbridge.json"

// DefaultDeny lists the sensitive files nvbridge neither reads, shows nor
// changes unless allowed: git's internals (a hook or `fsmonitor` in
// .git/config runs commands), environment files, keys and certificates,
// SSH folders, and the project's own policy file.
//
// SSH keys are named by their key types rather than "id_*", which would
// also refuse ordinary sources such as id_test.go.
var DefaultDeny = []string{
	".git", ".env*", "*.pem", "*.key", "*.p12", "*.pfx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "id_xmss*",
	".ssh", ".gnupg", ".netrc", ".npmrc", ".pypirc",
	ProjectFile,
}

// protected are default patterns that only the command line can allow:
// a project file (which an agent or a cloned repository may have written)
// cannot open git's internals or itself.
var protected = []string{".git", ProjectFile}

// Config is the policy given on the command line.
type Config struct {
	// Deny adds patterns (--deny GLOB).
	Deny []string
	// Allow exempts files the deny list matches (--allow-sensitive GLOB).
	Allow []string
	// AllowHardlinks lets nvbridge write to a file that has other hard
	// links (--allow-hardlinks).
	AllowHardlinks bool
}

// projectConfig is .nvbridge.json.
type projectConfig struct {
	Deny           []string `json:"deny"`
	Allow          []string `json:"allow"`
	AllowHardlinks bool     `json:"allow_hardlinks"`
}

// Policy decides which files are sensitive.
//
// A pattern without "/" is matched (path.Match syntax) against every
// component of a path relative to the root, so ".git" covers the folder and
// everything in it and "*.pem" any file so named; a pattern with "/" is
// matched against the whole relative path, where "**" stands for any number
// of folders. Matching ignores case (a case-insensitive file system would
// open .GIT/config as .git/config). Allow patterns win over deny patterns,
// except that a project file's allow cannot open a protected pattern.
type Policy struct {
	deny          []string
	allow         []string // from the command line
	projectAllow  []string // from the project file
	allowHardlink bool

	// verdicts memoizes Denied by lowercased path: a policy does not change
	// once loaded, and a result names the same files many times (a call
	// hierarchy's hundred items in a dozen files), each a glob match per
	// pattern.
	verdicts memo.Bounded[string, string]
}

func loadPolicy(root string, cfg Config) (*Policy, error) {
	p := &Policy{
		deny:          append(append([]string{}, DefaultDeny...), cfg.Deny...),
		allow:         cfg.Allow,
		allowHardlink: cfg.AllowHardlinks,
	}
	data, err := os.ReadFile(filepath.Join(root, ProjectFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", ProjectFile, err)
	default:
		var pc projectConfig
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pc); err != nil {
			return nil, fmt.Errorf("%s: %w (expected {\"deny\": [...], \"allow\": [...], \"allow_hardlinks\": false})", ProjectFile, err)
		}
		p.deny = append(p.deny, pc.Deny...)
		p.projectAllow = pc.Allow
		p.allowHardlink = p.allowHardlink || pc.AllowHardlinks
	}
	for _, list := range [][]string{p.deny, p.allow, p.projectAllow} {
		for _, pat := range list {
			if _, err := path.Match(strings.TrimPrefix(pat, "/"), ""); err != nil || strings.TrimSpace(pat) == "" {
				return nil, fmt.Errorf("bad pattern %q: %v", pat, err)
			}
		}
	}
	return p, nil
}

// Denied returns the deny pattern that matches rel (slash-separated,
// relative to the root), or "" when rel may be used.
func (p *Policy) Denied(rel string) string {
	if p == nil {
		p = &Policy{deny: DefaultDeny}
	}
	return p.verdicts.Get(strings.ToLower(rel), p.denied)
}

func (p *Policy) denied(rel string) string {
	for _, d := range p.deny {
		if !match(d, rel) {
			continue
		}
		if anyMatch(p.allow, rel) {
			return ""
		}
		if !isProtected(d) && anyMatch(p.projectAllow, rel) {
			return ""
		}
		return d
	}
	return ""
}

// AllowHardlinks reports whether writing to a file with other hard links
// is allowed.
func (p *Policy) AllowHardlinks() bool { return p != nil && p.allowHardlink }

func isProtected(pattern string) bool {
	for _, q := range protected {
		if strings.EqualFold(q, pattern) {
			return true
		}
	}
	return false
}

func anyMatch(patterns []string, rel string) bool {
	for _, p := range patterns {
		if match(p, rel) {
			return true
		}
	}
	return false
}

// match reports whether pattern matches rel (both compared in lower case).
func match(pattern, rel string) bool {
	pattern = strings.ToLower(strings.TrimPrefix(pattern, "/"))
	parts := strings.Split(rel, "/")
	if !strings.Contains(pattern, "/") {
		for _, c := range parts {
			if ok, _ := path.Match(pattern, c); ok {
				return true
			}
		}
		return false
	}
	return matchParts(strings.Split(pattern, "/"), parts)
}

// matchParts matches path components; "**" matches any number of them,
// and a pattern naming a folder covers what is inside it.
func matchParts(pat, parts []string) bool {
	if len(pat) == 0 {
		return true // a folder's pattern covers its contents
	}
	if pat[0] == "**" {
		for i := 0; i <= len(parts); i++ {
			if matchParts(pat[1:], parts[i:]) {
				return true
			}
		}
		return false
	}
	if len(parts) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], parts[0]); !ok {
		return false
	}
	return matchParts(pat[1:], parts[1:])
}

// Policy returns the root's policy.
func (r Root) Policy() *Policy { return r.policy }

// Sensitive reports whether abs (inside the root) is a file the policy
// hides: results (references, symbols, diagnostics) leave such files out.
func (r Root) Sensitive(abs string) bool {
	if !r.Contains(abs) {
		return false
	}
	return r.policy.Denied(r.Rel(filepath.Clean(abs))) != ""
}

// checkPolicy refuses abs when the policy denies it; path is the caller's
// spelling, for the message.
func (r Root) checkPolicy(path, abs string) error {
	if !r.contains(abs) || abs == r.dir {
		return nil
	}
	rel := r.Rel(abs)
	pat := r.policy.Denied(rel)
	if pat == "" {
		return nil
	}
	how := fmt.Sprintf("if the user wants nvbridge to use it, restart nvbridge with --allow-sensitive %q", pat)
	if !isProtected(pat) {
		how += fmt.Sprintf(" or add %q to \"allow\" in %s at the workspace root", pat, ProjectFile)
	}
	shown := rel
	if path != rel && path != abs {
		shown = path + " (" + rel + ")"
	}
	return apierr.Errorf(apierr.PreconditionFailed, how,
		"%s is a sensitive file (deny pattern %q): nvbridge does not read, show or change it", shown, pat)
}
