package edit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
)

// A user accepting all hunks but the last of a large change gets exactly
// those applied (one changeset), and the agent is told which; the diff of
// what was applied is cut to MaxShownDiffBytes like every diff an answer
// carries, saying so.
func TestAcceptedHunksOfALargeChange(t *testing.T) {
	const n = 2_000
	v := newEnv(t, map[string]string{"f.txt": numberedLines(n)})
	v.open("f.txt")
	var asked edit.Approval
	v.e.Approve = func(_ context.Context, a edit.Approval) (edit.Decision, error) {
		asked = a
		keep := make([]int, 0, len(a.Hunks)-1)
		for _, h := range a.Hunks[:len(a.Hunks)-1] {
			keep = append(keep, h.Index)
		}
		return edit.Decision{Hunks: keep}, nil
	}
	const max = 16 << 10
	v.e.MaxShownDiffBytes = max
	r, err := v.e.Replace(v.ctx, "f.txt", edit.Replacement{Old: "0) //", New: "0) ##"}, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked.Hunks) < 2 || asked.Kind != "change" {
		t.Fatalf("asked about %d hunk(s), kind %q", len(asked.Hunks), asked.Kind)
	}
	last := asked.Hunks[len(asked.Hunks)-1]
	if len(r.Hunks) != len(asked.Hunks) || r.Hunks[len(r.Hunks)-1].Accepted || !r.Hunks[0].Accepted {
		t.Fatalf("hunks told: %d, first %+v, last %+v", len(r.Hunks), r.Hunks[0], r.Hunks[len(r.Hunks)-1])
	}
	if len(r.AppliedDiff) > max+200 || !strings.Contains(r.AppliedDiff, "the diff of what was applied is cut here") {
		t.Errorf("applied_diff of %d bytes, not cut to %d with a note", len(r.AppliedDiff), max)
	}
	text := v.buffer("f.txt").Text
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines after the change", len(lines))
	}
	// Every tenth line is changed (value0, value10, ...), but for the one
	// in the last hunk.
	for i, l := range lines {
		inLast := i+1 >= last.OldStart && i+1 < last.OldStart+last.OldCount
		changed := strings.Contains(l, "0) ##")
		if want := i%10 == 0 && !inLast; changed != want {
			t.Fatalf("line %d %q: changed %v (the last hunk covers %d+%d)", i+1, l, changed, last.OldStart, last.OldCount)
		}
	}
}
