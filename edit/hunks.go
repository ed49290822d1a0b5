package edit

// Per-hunk review: the user, asked to approve a changeset, accepts some of
// its hunks and rejects the others. The items decided on are the diff's
// own (the one the user is shown): one per @@ hunk of an edited file, and
// one per created, deleted or renamed file (its content comes or goes with
// it). What is applied is then a changeset of the accepted items only,
// checked against the same snapshots as the proposal (CONFLICT when a file
// moved meanwhile) and applied through the same atomic path, save and its
// all-or-nothing disk commit included.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// Hunk is one item of a changeset's diff the user decides on, as the
// review receives it.
type Hunk struct {
	Index int    `msgpack:"index"` // 1-based, in the diff's order
	File  string `msgpack:"file"`  // relative to the workspace root
	Path  string `msgpack:"path"`  // absolute
	// Line is where it changes the file as it is now (1-based): the first
	// removed line, or the line an insertion comes after.
	Line   int    `msgpack:"line"`
	Kind   string `msgpack:"kind"` // "hunk", or a whole file's op: create, delete, rename
	Header string `msgpack:"header"`
	// First and Last are its lines in the diff (0-based, inclusive).
	First int `msgpack:"first"`
	Last  int `msgpack:"last"`
	// A hunk's ranges in the file before and after the change (1-based
	// starts as the @@ line says; a count of 0 starts after that line).
	OldStart int `msgpack:"old_start"`
	OldCount int `msgpack:"old_count"`
	NewStart int `msgpack:"new_start"`
	NewCount int `msgpack:"new_count"`

	file  int // its index in the prepared changeset's files
	patch preview.FilePatch
	hunk  int // its index in patch.Hunks; -1 for a whole file
}

// HunkDecision is what the agent is told of one item: whether the user
// accepted it.
type HunkDecision struct {
	Index    int    `json:"index"`
	File     string `json:"file"`
	Header   string `json:"header"`
	Accepted bool   `json:"accepted"`
}

// hunksOf lists the items of p's diff, and each file's section of the
// diff (by its index in p.files).
func hunksOf(p *prepared) ([]Hunk, map[int]string, error) {
	sections := map[int]string{}
	if p.diff == "" {
		return nil, sections, nil
	}
	byPath := make(map[string]int, len(p.results))
	for i, r := range p.results {
		byPath[r.Path] = i
	}
	lines := strings.Split(strings.TrimSuffix(p.diff, "\n"), "\n")
	var starts []int // the "diff --git" line of each file section
	for i, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			starts = append(starts, i)
		}
	}
	var out []Hunk
	for k, start := range starts {
		end := len(lines)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		text := strings.Join(lines[start:end], "\n") + "\n"
		fps, err := preview.ParsePatch(text)
		if err != nil || len(fps) != 1 {
			return nil, nil, apierr.Errorf(apierr.OperationFailed, "report this: nvbridge could not read its own diff", "read the diff's file %d: %v", k+1, err)
		}
		fp := fps[0]
		i, ok := byPath[fp.OldPath]
		if !ok {
			return nil, nil, apierr.Errorf(apierr.OperationFailed, "report this: nvbridge could not read its own diff", "the diff names %q, which the change does not", fp.OldPath)
		}
		sections[i] = text
		f := p.results[i]
		if p.files[i].Kind != "edit" {
			header := f.Op + " " + f.Path
			if f.NewPath != "" {
				header += " -> " + f.NewPath
			}
			out = append(out, Hunk{File: f.Path, Path: p.files[i].Path, Line: 1, Kind: f.Op, Header: header, First: start, Last: end - 1,
				file: i, patch: fp, hunk: -1})
			continue
		}
		h := 0
		for j := start; j < end; j++ {
			if !strings.HasPrefix(lines[j], "@@ ") || h >= len(fp.Hunks) {
				continue
			}
			last := end - 1
			for n := j + 1; n < end; n++ {
				if strings.HasPrefix(lines[n], "@@ ") {
					last = n - 1
					break
				}
			}
			ph := fp.Hunks[h]
			line := ph.OldStart
			if ph.OldCount == 0 {
				line = max(ph.OldStart, 1)
			}
			for _, l := range ph.Lines {
				if l.Op != ' ' {
					break
				}
				line++
			}
			out = append(out, Hunk{File: f.Path, Path: p.files[i].Path, Line: line, Kind: "hunk", Header: strings.TrimSuffix(lines[j], "\r"), First: j, Last: last,
				OldStart: ph.OldStart, OldCount: ph.OldCount, NewStart: ph.NewStart, NewCount: ph.NewCount,
				file: i, patch: fp, hunk: h})
			h++
		}
	}
	for i := range out {
		out[i].Index = i + 1
	}
	return out, sections, nil
}

// withHunks returns p with only the accepted items (1-based indexes of
// hunksOf), and what the agent is told of each. Files whose items are all
// accepted are kept as planned; files with none are left out; an edited
// file with some is planned again from its accepted hunks, against its
// text now, which must still be the one the proposal was made on. The
// returned plan's diff is the accepted part of the proposal's.
func (e *Engine) withHunks(ctx context.Context, p *prepared, accepted []int) (*prepared, []HunkDecision, error) {
	items, sections, err := hunksOf(p)
	if err != nil {
		return nil, nil, err
	}
	ok := make(map[int]bool, len(accepted))
	for _, n := range accepted {
		if n < 1 || n > len(items) {
			return nil, nil, apierr.Errorf(apierr.InvalidParameter, "answer with the indexes of the review's hunks",
				"the approval accepted hunk %d of a change that has %d", n, len(items))
		}
		ok[n] = true
	}
	decisions := make([]HunkDecision, len(items))
	byFile := map[int][]Hunk{}
	for i, h := range items {
		decisions[i] = HunkDecision{Index: h.Index, File: h.File, Header: h.Header, Accepted: ok[h.Index]}
		byFile[h.file] = append(byFile[h.file], h)
	}
	if len(ok) == len(items) {
		return p, decisions, nil
	}
	// The partly accepted files are planned again on their current text.
	var partial []string
	for i, hs := range byFile {
		if n := countAccepted(hs, ok); n > 0 && n < len(hs) {
			partial = append(partial, p.files[i].Path)
		}
	}
	snaps := map[string]nvim.FileSnapshot{}
	if len(partial) > 0 {
		slices.Sort(partial)
		got, err := e.s.Snapshot(ctx, partial, nvim.SnapshotOptions{})
		if err != nil {
			return nil, nil, err
		}
		for _, s := range got {
			snaps[s.Path] = s
		}
	}
	out := &prepared{created: p.created}
	aligned := len(p.after) == len(p.files)
	withBefore := len(p.before) == len(p.files)
	var diff strings.Builder
	add := func(pf plannedFile, before preview.Document) {
		out.files = append(out.files, pf.lua)
		out.results = append(out.results, pf.result)
		if aligned {
			out.after = append(out.after, pf.after)
		}
		if withBefore {
			out.before = append(out.before, before)
		}
		out.edits += pf.result.Edits
	}
	for i := range p.files {
		hs := byFile[i]
		n := countAccepted(hs, ok)
		switch {
		case len(hs) == 0 || n == len(hs):
			pf := plannedFile{lua: p.files[i], result: p.results[i]}
			var before preview.Document
			if aligned {
				pf.after = p.after[i]
			}
			if withBefore {
				before = p.before[i]
			}
			add(pf, before)
			diff.WriteString(sections[i])
		case n == 0:
			// Rejected: left out.
		default:
			fp := hs[0].patch
			fp.Hunks = nil
			for _, h := range hs {
				if ok[h.Index] {
					fp.Hunks = append(fp.Hunks, h.patch.Hunks[h.hunk])
				}
			}
			pf, err := e.planHunks(p, i, fp, snaps)
			if err != nil {
				return nil, nil, err
			}
			pf.result.Note = joinNote(pf.result.Note, "only the hunks the user accepted (see hunks)")
			add(pf, pf.before)
			d, err := preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{pf.change}})
			if err != nil {
				return nil, nil, apierr.Errorf(apierr.OperationFailed, "report this: nvbridge could not render the accepted hunks", "render the diff: %v", err)
			}
			diff.WriteString(d)
		}
	}
	out.diff = diff.String()
	return out, decisions, nil
}

// countAccepted counts the items of hs the user accepted.
func countAccepted(hs []Hunk, ok map[int]bool) int {
	n := 0
	for _, h := range hs {
		if ok[h.Index] {
			n++
		}
	}
	return n
}

// planHunks plans file i of p again from part (a patch of some of its
// hunks) on the file's text now, which must be the text the proposal was
// made on.
func (e *Engine) planHunks(p *prepared, i int, part preview.FilePatch, snaps map[string]nvim.FileSnapshot) (plannedFile, error) {
	f, r := p.files[i], p.results[i]
	snap, found := snaps[f.Path]
	if !found {
		return plannedFile{}, fmt.Errorf("no snapshot of %s", f.Path)
	}
	if snap.Err != nil {
		return plannedFile{}, e.luaError(snap.Err)
	}
	if !stillExpected(f.Expect, snap) {
		return plannedFile{}, apierr.Errorf(apierr.Conflict, "preview the change again; the user can review it again when asked",
			"%s changed while the user reviewed the change (nothing was changed)", r.Path)
	}
	current := documentOf(snap)
	edits, err := part.EditsFor(current)
	if err != nil {
		return plannedFile{}, apierr.Errorf(apierr.Conflict, "preview the change again", "%s: the accepted hunks no longer fit its text: %v (nothing was changed)", r.Path, err)
	}
	fc := preview.FileChange{Path: r.Path, Kind: preview.OpEdit, Old: current, Edits: edits}
	return e.prepareFile(fc, target{abs: f.Path, rel: r.Path, snap: snap}, target{}, false)
}

// stillExpected reports whether a snapshot shows a target as a plan
// expects it: the same loaded buffer at the same changedtick, or the same
// content on disk.
func stillExpected(want luaExpect, s nvim.FileSnapshot) bool {
	if s.Loaded != want.Loaded {
		return false
	}
	if want.Loaded {
		return s.Bufnr == want.Bufnr && s.ChangedTick == want.ChangedTick
	}
	return s.Fingerprint == want.Fingerprint
}

// hunksLine says which hunks the user accepted, for a summary.
func hunksLine(hs []HunkDecision) string {
	if len(hs) == 0 {
		return ""
	}
	var yes, no []string
	for _, h := range hs {
		n := fmt.Sprintf("%d (%s %s)", h.Index, h.File, h.Header)
		if h.Accepted {
			yes = append(yes, n)
		} else {
			no = append(no, n)
		}
	}
	s := fmt.Sprintf("The user reviewed the %d hunk(s) one by one: accepted %s", len(hs), listOrNone(yes))
	return s + "; rejected " + listOrNone(no) + ".\n"
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
