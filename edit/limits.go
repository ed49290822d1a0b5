package edit

import (
	"fmt"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// What one change may cost. Time and memory grow with a change's edits and
// its diff: 200,000 replacements in a 200,000-line file preview in about
// 0.6 s with a 14 MB diff (BenchmarkReplace200k). The limits keep
// well above that and refuse what is worse before it is computed (edits)
// or stored (a preview's diff); nvbridge's --max-edits and --max-diff-bytes
// change them. The diff an answer carries is cut much shorter: an agent
// reads it, and a preview's full diff stays readable page by page.
const (
	// DefaultMaxEdits is Engine.MaxEdits' default.
	DefaultMaxEdits = 500_000
	// DefaultMaxDiffBytes is Engine.MaxDiffBytes' default: half of what
	// all stored previews may hold (MaxStoredBytes), which also counts
	// their buffer ops.
	DefaultMaxDiffBytes = 32 << 20
	// DefaultMaxShownDiffBytes is Engine.MaxShownDiffBytes' default.
	DefaultMaxShownDiffBytes = 64 << 10
	// DefaultMaxPreviewDiffBytes is Engine.MaxPreviewDiffBytes' default:
	// about 4,000 tokens of diff, the first hunks of a large change (a
	// preview of 1,000 one-line hunks is 65 KB of diff, which an agent
	// that made those edits need not read whole to apply them).
	DefaultMaxPreviewDiffBytes = 16 << 10
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
		"the change has %d edits; one change makes at most %d (nothing was changed)", n, e.MaxEdits).
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

// DiffCut says that an answer's diff is the start of the change's diff.
type DiffCut struct {
	// TotalBytes is the size of the whole diff.
	TotalBytes int `json:"total_bytes"`
	// NextOffset is where the rest starts: get_changeset_diff's offset,
	// for a preview.
	NextOffset int `json:"next_offset"`
}

// shown cuts r's diff to MaxShownDiffBytes (at a file, hunk or line start).
func (e *Engine) shown(r Result) Result {
	return cutDiff(r, e.MaxShownDiffBytes)
}

// shownPreview cuts a preview's diff to MaxPreviewDiffBytes (within
// MaxShownDiffBytes): the rest is read on request (get_changeset_diff).
func (e *Engine) shownPreview(r Result) Result {
	max := e.MaxShownDiffBytes
	if e.MaxPreviewDiffBytes > 0 && (max <= 0 || e.MaxPreviewDiffBytes < max) {
		max = e.MaxPreviewDiffBytes
	}
	return cutDiff(r, max)
}

func cutDiff(r Result, max int) Result {
	if max <= 0 || len(r.Diff) <= max {
		return r
	}
	total := len(r.Diff)
	var next int
	r.Diff, next = preview.DiffPage(r.Diff, 0, max)
	r.DiffCut = &DiffCut{TotalBytes: total, NextOffset: next}
	return r
}

// boundedApplied cuts the diff of the hunks a user accepted to
// MaxShownDiffBytes, saying so at its end.
func (e *Engine) boundedApplied(d string) string {
	if e.MaxShownDiffBytes <= 0 || len(d) <= e.MaxShownDiffBytes {
		return d
	}
	page, next := preview.DiffPage(d, 0, e.MaxShownDiffBytes)
	return page + fmt.Sprintf("(the diff of what was applied is cut here: its first %d of %d bytes; get_buffer_diff or read_file show the files now)\n", next, len(d))
}

// cutNote says, before a cut diff, what the rest is and where to read it.
func (r Result) cutNote() string {
	c := r.DiffCut
	if c == nil {
		return ""
	}
	if r.ChangesetID != "" {
		return fmt.Sprintf("The diff below is its first %d of %d bytes (the changeset applies whole): get_changeset_diff {\"changeset_id\": %q, \"offset\": %d} shows the rest.\n",
			c.NextOffset, c.TotalBytes, r.ChangesetID, c.NextOffset)
	}
	return fmt.Sprintf("The diff below is its first %d of %d bytes; the whole change was made (read_file or get_buffer_diff show the files now).\n",
		c.NextOffset, c.TotalBytes)
}

// DiffPage is a page of a stored preview's diff.
type DiffPage struct {
	ChangesetID string `json:"changeset_id"`
	Diff        string `json:"diff"`
	Offset      int    `json:"offset"`
	// NextOffset is where the next page starts; absent on the last page.
	NextOffset *int `json:"next_offset,omitempty"`
	TotalBytes int  `json:"total_bytes"`
}

// DiffPage reads a stored preview's diff from offset on, at most
// MaxShownDiffBytes of it.
func (e *Engine) DiffPage(id string, offset int) (DiffPage, error) {
	e.mu.Lock()
	e.expire()
	p := e.store[id]
	e.mu.Unlock()
	if p == nil {
		return DiffPage{}, apierr.Errorf(apierr.ResourceNotFound, "preview the change again: it may have expired, been discarded or applied",
			"no changeset %q", id)
	}
	diff := p.diff
	if offset < 0 || offset > len(diff) || offset < len(diff) && !utf8.RuneStart(diff[offset]) {
		return DiffPage{}, apierr.Errorf(apierr.InvalidParameter, "pass 0, or the next_offset of the previous answer",
			"offset %d is not a place in the diff of %s (%d bytes)", offset, id, len(diff))
	}
	max := e.MaxShownDiffBytes
	if max <= 0 {
		max = len(diff) + 1
	}
	text, next := preview.DiffPage(diff, offset, max)
	page := DiffPage{ChangesetID: id, Diff: text, Offset: offset, TotalBytes: len(diff)}
	if next < len(diff) {
		page.NextOffset = &next
	}
	return page, nil
}

// Summary renders a page: where it is, then its text.
func (p DiffPage) Summary() string {
	s := fmt.Sprintf("Bytes %d-%d of the %d-byte diff of %s", p.Offset, p.Offset+len(p.Diff), p.TotalBytes, p.ChangesetID)
	if p.NextOffset != nil {
		s += fmt.Sprintf("; the next page starts at offset %d", *p.NextOffset)
	}
	return s + ".\n" + p.Diff
}
