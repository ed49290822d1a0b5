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
	"slices"
	"strconv"
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
// git's internals and the project's policy file, which an agent or a
// cloned repository may have written. The user's own config file, which
// applies to every workspace, cannot open them either (nor itself, when
// the root holds it: see loadPolicy).
var protected = []string{".git", ProjectFile}

// Config is the policy the user gives: on the command line (flags) and in
// their own config file (UserFile). Nobody's repository writes either, so
// only these may widen the policy; the project file only adds denies.
type Config struct {
	// Deny adds patterns (--deny GLOB).
	Deny []string
	// Allow exempts files the deny list matches (--allow-sensitive GLOB).
	Allow []string
	// AllowHardlinks lets nvbridge write to a file that has other hard
	// links (--allow-hardlinks).
	AllowHardlinks bool
	// UserFile is the user's config file (UserConfigFile), read when set;
	// "" reads none (tests, and callers that give the policy whole).
	UserFile string
}

// fileConfig is the shape of both files: the user's config file and the
// project file (.nvbridge.json), whose allow keys are ignored.
type fileConfig struct {
	Deny           []string `json:"deny"`
	Allow          []string `json:"allow"`
	AllowHardlinks bool     `json:"allow_hardlinks"`
}

// UserConfigFile is the user's own config file:
// $XDG_CONFIG_HOME/nvbridge/config.json, else ~/.config/nvbridge/config.json.
func UserConfigFile() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // the XDG spec ignores a relative value
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "nvbridge", "config.json"), nil
}

// Policy decides which files are sensitive.
//
// A pattern without "/" is matched (path.Match syntax) against every
// component of a path relative to the root, so ".git" covers the folder and
// everything in it and "*.pem" any file so named; a pattern with "/" is
// matched against the whole relative path, where "**" stands for any number
// of folders. Matching ignores case (a case-insensitive file system would
// open .GIT/config as .git/config). Allow patterns win over deny patterns,
// except that the user config file's allow cannot open a protected pattern.
type Policy struct {
	deny          []string
	allow         []string // from the command line
	userAllow     []string // from the user's config file
	protected     []string // patterns only the command line can allow
	allowHardlink bool
	userFile      string // the user's config file, as the remediations name it

	// projectIgnored is what the project file asked for and did not get.
	projectIgnored []string
	projectLinks   bool

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
		protected:     protected,
		allowHardlink: cfg.AllowHardlinks,
		userFile:      cfg.UserFile,
	}
	if cfg.UserFile != "" {
		uc, err := readConfigFile(cfg.UserFile, cfg.UserFile)
		if err != nil {
			return nil, err
		}
		p.deny = append(p.deny, uc.Deny...)
		p.userAllow = uc.Allow
		p.allowHardlink = p.allowHardlink || uc.AllowHardlinks
		// A root that holds the user's config file (a workspace at ~) would
		// let an agent widen the policy of the next start: it is denied
		// there like the project file.
		for _, rel := range pathsInside(root, cfg.UserFile) {
			pat := "/" + escapeGlob(rel)
			p.deny = append(p.deny, pat)
			p.protected = append(slices.Clip(p.protected), pat)
		}
	}
	pc, err := readConfigFile(filepath.Join(root, ProjectFile), ProjectFile)
	if err != nil {
		return nil, err
	}
	p.deny = append(p.deny, pc.Deny...)
	// A cloned repository writes this file: what it allows is not given.
	for _, a := range pc.Allow {
		if strings.TrimSpace(a) != "" {
			p.projectIgnored = append(p.projectIgnored, a)
		}
	}
	p.projectLinks = pc.AllowHardlinks
	for _, list := range [][]string{p.deny, p.allow, p.userAllow} {
		for _, pat := range list {
			if _, err := path.Match(strings.TrimPrefix(pat, "/"), ""); err != nil || strings.TrimSpace(pat) == "" {
				return nil, fmt.Errorf("bad pattern %q: %v", pat, err)
			}
		}
	}
	return p, nil
}

// readConfigFile reads a policy file (a missing one is empty); name is how
// errors call it.
func readConfigFile(file, name string) (fileConfig, error) {
	var fc fileConfig
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fc, nil
	case err != nil:
		return fc, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return fc, fmt.Errorf("%s: %w (expected {\"deny\": [...], \"allow\": [...], \"allow_hardlinks\": false})", name, err)
	}
	return fc, nil
}

// pathsInside returns file relative to root (slash-separated), as written
// and as it resolves, for each that lies inside root.
func pathsInside(root, file string) []string {
	var out []string
	candidates := []string{filepath.Clean(file)}
	if real, err := RealPath(filepath.Clean(file)); err == nil {
		candidates = append(candidates, real)
	}
	for _, c := range candidates {
		rel, err := filepath.Rel(root, c)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// escapeGlob quotes path.Match's special characters in a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// userFileName names the user's config file in remediations.
func (p *Policy) userFileName() string {
	if p == nil || p.userFile == "" {
		return "$XDG_CONFIG_HOME/nvbridge/config.json (default ~/.config/nvbridge/config.json)"
	}
	return p.userFile
}

// Warning is something about the policy's sources the user and the agent
// should see (get_status, the log): nvbridge still starts.
type Warning struct {
	Reason      string
	Remediation string
}

// Warnings says what the project file asked to allow and did not get.
func (p *Policy) Warnings() []Warning {
	if p == nil || (len(p.projectIgnored) == 0 && !p.projectLinks) {
		return nil
	}
	var asked, how []string
	if len(p.projectIgnored) > 0 {
		quoted := make([]string, len(p.projectIgnored))
		for i, a := range p.projectIgnored {
			quoted[i] = strconv.Quote(a)
		}
		list := strings.Join(quoted, ", ")
		asked = append(asked, "\"allow\": ["+list+"]")
		how = append(how, fmt.Sprintf("add the patterns you want (%s) to \"allow\" in your own config file %s, or restart nvbridge with --allow-sensitive GLOB for each", list, p.userFileName()))
	}
	if p.projectLinks {
		asked = append(asked, "\"allow_hardlinks\": true")
		how = append(how, fmt.Sprintf("to write to files with other hard links, set \"allow_hardlinks\": true in %s or restart nvbridge with --allow-hardlinks", p.userFileName()))
	}
	return []Warning{{
		Reason: fmt.Sprintf("%s at the workspace root has %s: ignored, since a project's file may only add denies (a cloned repository could otherwise open your .env and keys)",
			ProjectFile, strings.Join(asked, " and ")),
		Remediation: "if you (not the repository) want this: " + strings.Join(how, "; ") + ". Remove the keys from " + ProjectFile + " to silence this warning.",
	}}
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
		if !p.isProtected(d) && anyMatch(p.userAllow, rel) {
			return ""
		}
		return d
	}
	return ""
}

// AllowHardlinks reports whether writing to a file with other hard links
// is allowed.
func (p *Policy) AllowHardlinks() bool { return p != nil && p.allowHardlink }

func (p *Policy) isProtected(pattern string) bool {
	list := protected
	if p != nil {
		list = p.protected
	}
	for _, q := range list {
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
	if r.policy.isProtected(pat) {
		how += " (only the command line can open it)"
	} else {
		how += fmt.Sprintf(", or add %q to \"allow\" in the user's own config file %s (a project's %s can only add denies)", pat, r.policy.userFileName(), ProjectFile)
	}
	shown := rel
	if path != rel && path != abs {
		shown = path + " (" + rel + ")"
	}
	return apierr.Errorf(apierr.PreconditionFailed, how,
		"%s is a sensitive file (deny pattern %q): nvbridge does not read, show or change it", shown, pat)
}
