package edit

import (
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// PendingChangeset is a stored preview not yet applied or discarded (the
// MCP resources list them).
type PendingChangeset struct {
	ID        string    `json:"changeset_id"`
	Files     []string  `json:"files"` // absolute paths it touches
	Edits     int       `json:"edit_count"`
	DiffBytes int       `json:"diff_bytes"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Pending lists the stored previews, oldest first.
func (e *Engine) Pending() []PendingChangeset {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expire()
	out := make([]PendingChangeset, 0, len(e.order))
	for _, id := range e.order {
		p := e.store[id]
		if p == nil {
			continue
		}
		out = append(out, PendingChangeset{ID: id, Files: p.paths(), Edits: p.edits, DiffBytes: len(p.diff), ExpiresAt: p.created.Add(e.MaxAge)})
	}
	return out
}

// PendingDiff is a stored preview's whole unified diff and the files it
// touches (absolute paths).
func (e *Engine) PendingDiff(id string) (diff string, files []string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expire()
	p := e.store[id]
	if p == nil {
		return "", nil, apierr.Errorf(apierr.ResourceNotFound, "it may have expired, been discarded or applied; list the changesets again",
			"no changeset %q", id)
	}
	return p.diff, p.paths(), nil
}

// paths are the files a prepared change touches, renames' targets too.
func (p *prepared) paths() []string {
	out := make([]string, 0, len(p.files))
	for _, f := range p.files {
		out = append(out, f.Path)
		if f.NewPath != "" {
			out = append(out, f.NewPath)
		}
	}
	return out
}
