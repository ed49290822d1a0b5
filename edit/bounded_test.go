package edit_test

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

// numberedLines is n lines like a program's, each holding "compute" once
// and ending in a multibyte character.
func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d) // é\n", i, i)
	}
	return b.String()
}

// A change past the engine's limits is refused before anything is made or
// stored, saying the count or the size and how to get it done; the buffer
// is as it was. Applying without a preview gets past the diff limit.
func TestChangeLimits(t *testing.T) {
	const n = 300
	v := newEnv(t, map[string]string{"f.txt": numberedLines(n)})
	v.open("f.txt")
	before := v.buffer("f.txt")
	unchanged := func(t *testing.T) {
		t.Helper()
		if b := v.buffer("f.txt"); b.Text != before.Text || b.Tick != before.Tick {
			t.Fatalf("the buffer changed (tick %d -> %d)", before.Tick, b.Tick)
		}
		if got := v.e.StoredBytes(); got != 0 {
			t.Fatalf("%d bytes of previews stored", got)
		}
	}
	v.e.MaxEdits = n - 1

	t.Run("matches", func(t *testing.T) {
		_, err := v.e.Replace(v.ctx, "f.txt", edit.Replacement{Old: "compute", New: "calc"}, edit.Options{Preview: true})
		e := wantCode(t, err, apierr.InvalidParameter)
		for _, want := range []string{`"compute" occurs 300 times in f.txt`, "one change makes at most 299 edits", "nothing was changed"} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("message %q lacks %q", e.Message, want)
			}
		}
		if !strings.Contains(e.Remediation, "narrow old") || !strings.Contains(e.Remediation, "--max-edits") {
			t.Errorf("remediation %q", e.Remediation)
		}
		unchanged(t)
	})
	t.Run("regex matches, applied at once", func(t *testing.T) {
		_, err := v.e.Replace(v.ctx, "f.txt", edit.Replacement{Old: `compute\((\d+)\)`, New: "calc($1)", Regex: true}, edit.Options{})
		e := wantCode(t, err, apierr.InvalidParameter)
		if !strings.Contains(e.Message, "occurs more than 299 times") {
			t.Errorf("message %q", e.Message)
		}
		unchanged(t)
	})
	t.Run("edits of a changeset", func(t *testing.T) {
		var edits []preview.TextEdit
		for l := range n {
			edits = append(edits, preview.TextEdit{StartLine: l, StartCol: 0, EndLine: l, EndCol: 1, NewText: "  "})
		}
		cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "f.txt", Edits: edits}}}
		_, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
		e := wantCode(t, err, apierr.InvalidParameter)
		if !strings.Contains(e.Message, "the change has 300 edits; one change makes at most 299") || !strings.Contains(e.Remediation, "--max-edits") {
			t.Errorf("message %q, remediation %q", e.Message, e.Remediation)
		}
		unchanged(t)
	})
	v.e.MaxEdits = n

	t.Run("diff size", func(t *testing.T) {
		v.e.MaxDiffBytes = 1000
		defer func() { v.e.MaxDiffBytes = edit.DefaultMaxDiffBytes }()
		r := edit.Replacement{Old: "compute", New: "calc"}
		_, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
		e := wantCode(t, err, apierr.InvalidParameter)
		if !regexp.MustCompile(`the preview's diff is \d{5} bytes, over the 1000 bytes a preview may keep \(300 edits; nothing was changed\)`).MatchString(e.Message) {
			t.Errorf("message %q", e.Message)
		}
		if !strings.Contains(e.Remediation, "preview: false") || !strings.Contains(e.Remediation, "--max-diff-bytes") {
			t.Errorf("remediation %q", e.Remediation)
		}
		unchanged(t)
		// The remediation works: applied at once, nothing is kept.
		res, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchesReplaced != n || v.buffer("f.txt").Text != strings.ReplaceAll(before.Text, "compute", "calc") {
			t.Fatalf("applied %d matches; buffer not as expected", res.MatchesReplaced)
		}
	})
}

// Replacements of 20,000 matches end exactly as the same replacement made
// in Go: one match per line, a multi-line replacement spanning every line
// break, and a regular expression with a group. Each is previewed, then the
// preview is applied.
func TestReplaceManyMatchesExact(t *testing.T) {
	const n = 20_000
	orig := numberedLines(n)
	v := newEnv(t, map[string]string{"f.txt": orig})
	v.open("f.txt")
	re := regexp.MustCompile(`compute\((\d+)\)`)
	for _, c := range []struct {
		name  string
		r     edit.Replacement
		want  string
		found int
	}{
		{"one per line", edit.Replacement{Old: "compute", New: "calc"}, strings.ReplaceAll(orig, "compute", "calc"), n},
		{"across line breaks", edit.Replacement{Old: "é\n\t", New: "é\n\n\t// a\n\t// b\n\t"}, strings.ReplaceAll(orig, "é\n\t", "é\n\n\t// a\n\t// b\n\t"), n - 1},
		{"regex with a group", edit.Replacement{Old: re.String(), New: "calc($1, é)", Regex: true}, re.ReplaceAllString(orig, "calc($1, é)"), n},
	} {
		t.Run(c.name, func(t *testing.T) {
			pv, err := v.e.Replace(v.ctx, "f.txt", c.r, edit.Options{Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			if pv.MatchesFound != c.found || len(pv.Matches) != 50 || pv.Matches[49].Line != 50 {
				t.Fatalf("%d matches found, %d listed (last %+v), want %d and the first 50", pv.MatchesFound, len(pv.Matches), pv.Matches[len(pv.Matches)-1], c.found)
			}
			if _, err := v.e.ApplyStored(v.ctx, pv.ChangesetID, false); err != nil {
				t.Fatal(err)
			}
			if got := v.buffer("f.txt").Text; got != c.want {
				t.Fatalf("the buffer (%d bytes) is not the expected text (%d bytes)", len(got), len(c.want))
			}
			v.undo("f.txt")
			if v.buffer("f.txt").Text != orig {
				t.Fatal("undo did not restore the text")
			}
		})
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// A preview's memory is given back: after it is discarded, and after it is
// applied, the heap in use is about what it was before (the session keeps
// the buffer's text either way, which the first snapshot already read).
// While stored, the preview holds its diff, so the test can tell.
func TestPreviewMemoryReturns(t *testing.T) {
	const n = 50_000
	v := newEnv(t, map[string]string{"f.txt": numberedLines(n)})
	v.open("f.txt")
	r := edit.Replacement{Old: "compute", New: "calc"}
	// A first preview warms what is kept anyway (the text cache, code
	// paths' own allocations).
	warm, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.e.Discard(warm.ChangesetID); err != nil {
		t.Fatal(err)
	}
	base := heapInUse()
	res, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	stored := heapInUse()
	diffBytes := res.DiffCut.TotalBytes
	// Retained is what stays past base, allowing for a quarter of the
	// diff's size (the heap's own slack), which a stored preview is over.
	bound := base + uint64(diffBytes/4)
	if stored < base+uint64(diffBytes) {
		t.Fatalf("a stored preview with a %d-byte diff: heap in use %d -> %d (the check cannot see a preview)", diffBytes, base, stored)
	}
	if err := v.e.Discard(res.ChangesetID); err != nil {
		t.Fatal(err)
	}
	if after := heapInUse(); after > bound {
		t.Errorf("after discarding the preview the heap in use is %d bytes, was %d before it (%d-byte diff)", after, base, diffBytes)
	}
	res, err = v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	// Read once (as the next change reads it), the new text is what the
	// session keeps, in its text cache and split into lines, beside the
	// old text's lines (a planned change's parse): that much more than
	// before, not the diff.
	applied := strings.ReplaceAll(numberedLines(n), "compute", "calc")
	if v.buffer("f.txt").Text != applied {
		t.Fatal("the applied text is not the expected one")
	}
	if after := heapInUse(); after > bound+uint64(len(applied)+16*n) {
		t.Errorf("after applying the preview the heap in use is %d bytes, was %d before it (%d-byte diff, %d-byte text)", after, base, diffBytes, len(applied))
	}
}

// An answer carries the start of a large diff (MaxShownDiffBytes), saying
// where the rest starts; DiffPage reads the rest of a stored preview's diff
// page by page, the pages put together being the whole diff. The preview
// applies whole.
func TestLargeDiffIsShownCut(t *testing.T) {
	const n = 5_000
	orig := numberedLines(n)
	v := newEnv(t, map[string]string{"f.txt": orig})
	v.open("f.txt")
	r := edit.Replacement{Old: "compute", New: "calc"}

	v.e.MaxShownDiffBytes, v.e.MaxPreviewDiffBytes = 0, 0 // no cut: the whole diff, to compare with
	whole, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if whole.DiffCut != nil || v.e.Discard(whole.ChangesetID) != nil {
		t.Fatalf("cut %+v without a limit", whole.DiffCut)
	}
	const max = 16 << 10
	v.e.MaxShownDiffBytes = max
	pv, err := v.e.Replace(v.ctx, "f.txt", r, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	cut := pv.DiffCut
	if cut == nil || cut.TotalBytes != len(whole.Diff) || len(pv.Diff) > max || cut.NextOffset != len(pv.Diff) || !strings.HasPrefix(whole.Diff, pv.Diff) {
		t.Fatalf("preview of a %d-byte diff: %d bytes shown, cut %+v", len(whole.Diff), len(pv.Diff), cut)
	}
	if s := pv.Summary(); !strings.Contains(s, fmt.Sprintf(`get_changeset_diff {"changeset_id": %q, "offset": %d}`, pv.ChangesetID, cut.NextOffset)) {
		t.Errorf("the summary does not say how to read the rest:\n%.500s", s)
	}
	diff := pv.Diff
	for offset, pages := cut.NextOffset, 0; ; pages++ {
		page, err := v.e.DiffPage(pv.ChangesetID, offset)
		if err != nil {
			t.Fatal(err)
		}
		if page.Offset != offset || page.TotalBytes != len(whole.Diff) || len(page.Diff) > max || len(page.Diff) == 0 {
			t.Fatalf("page at %d: offset %d, %d bytes of %d", offset, page.Offset, len(page.Diff), page.TotalBytes)
		}
		diff += page.Diff
		if page.NextOffset == nil {
			break
		}
		if pages > len(whole.Diff)/max+1 {
			t.Fatal("more pages than the diff can fill")
		}
		offset = *page.NextOffset
	}
	if diff != whole.Diff {
		t.Fatal("the pages put together are not the diff")
	}
	wantCode(t, errOf(v.e.DiffPage(pv.ChangesetID, len(whole.Diff)+1)), apierr.InvalidParameter)
	wantCode(t, errOf(v.e.DiffPage(pv.ChangesetID, strings.Index(whole.Diff, "é")+1)), apierr.InvalidParameter)

	applied, err := v.e.ApplyStored(v.ctx, pv.ChangesetID, false)
	if err != nil {
		t.Fatal(err)
	}
	// Applied as previewed: the diff the agent was shown is not sent again.
	if !applied.DiffInPreview || applied.Diff != "" || applied.DiffCut != nil || !strings.Contains(applied.Summary(), "The diff is the preview's") {
		t.Fatalf("applied: %d bytes of diff shown, cut %+v, in preview %v", len(applied.Diff), applied.DiffCut, applied.DiffInPreview)
	}
	if v.buffer("f.txt").Text != strings.ReplaceAll(orig, "compute", "calc") {
		t.Fatal("the applied text is not the expected one")
	}
	wantCode(t, errOf(v.e.DiffPage(pv.ChangesetID, 0)), apierr.ResourceNotFound)
}

func errOf(_ edit.DiffPage, err error) error { return err }
