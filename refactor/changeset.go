package refactor

// WorkspaceEdits turned into changesets: refusing files outside the workspace, merging.

import (
	"context"
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// workspaceChangeset converts a server's WorkspaceEdit into a changeset,
// after refusing edits to files outside the workspace.
func workspaceChangeset(ctx context.Context, c *lsp.Client, enc preview.Encoding, raw json.RawMessage) (preview.Changeset, error) {
	if outside := editOutsideWorkspace(c, raw); len(outside) > 0 {
		return preview.Changeset{}, apierr.Errorf(apierr.PreconditionFailed,
			"nvbridge edits only files inside the workspace; the symbol is probably defined outside it (standard library or a dependency)",
			"the server's edit touches %d file(s) outside the workspace, e.g. %s", len(outside), outside[0]).
			WithDetails(map[string]any{"outside_files": outside})
	}
	cs, err := Changeset(ctx, c, enc, raw)
	if err != nil {
		return preview.Changeset{}, err
	}
	// Servers list files in no particular order (gopls: map order); edits
	// of distinct files commute, so sort them for a stable diff. File
	// operations keep the server's order.
	for _, fc := range cs.Files {
		if fc.Kind != preview.OpEdit {
			return cs, nil
		}
	}
	sort.SliceStable(cs.Files, func(i, j int) bool { return cs.Files[i].Path < cs.Files[j].Path })
	return cs, nil
}

// editOutsideWorkspace lists the files a WorkspaceEdit names that are outside
// the workspace root.
func editOutsideWorkspace(c *lsp.Client, raw json.RawMessage) []string {
	var we struct {
		Changes         map[string]json.RawMessage `json:"changes"`
		DocumentChanges []struct {
			TextDocument *struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"documentChanges"`
	}
	if json.Unmarshal(raw, &we) != nil {
		return nil // the conversion reports the malformed edit
	}
	var uris []string
	for u := range we.Changes {
		uris = append(uris, u)
	}
	for _, dc := range we.DocumentChanges {
		if dc.TextDocument != nil {
			uris = append(uris, dc.TextDocument.URI)
		}
		uris = append(uris, dc.URI, dc.OldURI, dc.NewURI)
	}
	root := c.Session.Root()
	seen := map[string]bool{}
	var out []string
	for _, u := range uris {
		if u == "" {
			continue
		}
		p := lsp.PathOf(protocol.DocumentURI(u))
		if p == "" {
			p = string(u) // not a file: named by its URI
		}
		if !root.Contains(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// mergeChangesets appends b's file changes to a's; edits of a file both
// change are combined (they were computed against the same text).
func mergeChangesets(a, b preview.Changeset) preview.Changeset {
	for _, fc := range b.Files {
		merged := false
		if fc.Kind == preview.OpEdit {
			for i := range a.Files {
				if a.Files[i].Kind == preview.OpEdit && a.Files[i].Path == fc.Path {
					a.Files[i].Edits = append(a.Files[i].Edits, fc.Edits...)
					merged = true
					break
				}
			}
		}
		if !merged {
			a.Files = append(a.Files, fc)
		}
	}
	return a
}
