package workspace

// A path resolved once in a call, carried for the rest of it: a rename
// resolves the file it was asked in when it opens it, then its changeset
// and the changeset engine named the same file again, each resolving it
// once more (an openat2 and a close, some 15-30 us each on the way from
// the server's answer to the preview). Only within the call that
// resolved it (a context value, gone with the call): a later call
// resolves it again, and whatever writes checks again where it writes
// (Root.Commit, apply.lua's guard).

import "context"

type resolvedKey struct{}

// WithResolved is ctx carrying abs, a path Resolve gave in the call ctx
// serves (ResolveIn takes it as it is).
func WithResolved(ctx context.Context, abs string) context.Context {
	return context.WithValue(ctx, resolvedKey{}, abs)
}

// ResolveIn is r.Resolve(path), or the path ctx carries (WithResolved)
// when path names it exactly: that path itself, or its workspace-relative
// form (Rel of it: no link, ".." or "." to follow, as Resolve gave a real
// path), not resolved again.
func (r Root) ResolveIn(ctx context.Context, path string) (string, error) {
	if abs, ok := ctx.Value(resolvedKey{}).(string); ok && abs != "" && r.contains(abs) && abs != r.dir &&
		(path == abs || path == r.Rel(abs)) {
		return abs, nil
	}
	return r.Resolve(path)
}
