package edit

import (
	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// What one change may cost. Time and memory grow with a change's edits and
// its diff: 200,000 replacements in a 200,000-line file preview in about
// 0.6 s with a 14 MB diff. The limits keep well above that and
// refuse what is worse before it is computed (edits) or stored (a
// preview's diff); nvbridge's --max-edits and --max-diff-bytes change them.
const (
	// DefaultMaxEdits is Engine.MaxEdits' default.
	DefaultMaxEdits = 500_000
	// DefaultMaxDiffBytes is Engine.MaxDiffBytes' default: half of what
	// all stored previews may hold (MaxStoredBytes), which also counts
	// their buffer ops.
	DefaultMaxDiffBytes = 32 << 20
)

// checkEdits refuses a changeset of more than MaxEdits edits, before any
// file is read.
func (e *Engine) checkEdits(cs preview.Changeset) error {
	n := 0
	for _, fc := range cs.Files {
		n += len(fc.Edits)
	}
	if e.MaxEdits <= 0 || n <= e.MaxEdits {
		return nil
	}
	return apierr.Errorf(apierr.InvalidParameter,
		"split the change into smaller ones (fewer files or a smaller range per call), or ask for nvbridge to be started with a larger --max-edits",
		"the change has %d edits, more than the %d one change may make (nothing was changed)", n, e.MaxEdits).
		WithDetails(map[string]any{"edits": n, "max_edits": e.MaxEdits})
}

// checkDiff refuses to keep a preview whose diff is over MaxDiffBytes.
func (e *Engine) checkDiff(p *prepared) error {
	if e.MaxDiffBytes <= 0 || len(p.diff) <= e.MaxDiffBytes {
		return nil
	}
	return apierr.Errorf(apierr.InvalidParameter,
		"make the change smaller (a narrower pattern or range, fewer files), apply it without a preview (preview: false: its diff is not kept), or ask for nvbridge to be started with a larger --max-diff-bytes",
		"the preview's diff is %d bytes, over the %d bytes a preview may keep (%d edits; nothing was changed)", len(p.diff), e.MaxDiffBytes, p.edits).
		WithDetails(map[string]any{"diff_bytes": len(p.diff), "max_diff_bytes": e.MaxDiffBytes})
}
