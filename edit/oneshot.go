package edit

import (
	"errors"
	"hash/fnv"
	"slices"

	"github.com/nvbridge/nvbridge/apierr"
)

// One-shot edits (preview false) are numbered against the files as they
// are now: their plan is made on a read of the files and applied at once.
// Two agents editing one file at the same moment would otherwise refuse
// each other (the file's buffer moved between one's read and its apply).
// So nvbridge's own one-shot changes of a file are planned and applied one
// at a time, and a change whose file was moved between its read and its
// apply by something else (the user typing, another nvbridge) is planned
// again on the new text, a few times, while no user was asked to approve
// it (they approved that diff, not another).

// movedError is a CONFLICT because a target's buffer changed between the
// read a change was planned on and its apply (nvim.LuaError.Moved).
type movedError struct{ err *apierr.Error }

func (m movedError) Error() string { return m.err.Error() }
func (m movedError) Unwrap() error { return m.err }

// replans bounds how often a one-shot change is planned again.
const replans = 3

// fileLockStripes is how many locks one-shot changes share, by path.
const fileLockStripes = 64

// oneShot runs plan (a read of the files, a plan, an apply) for a change
// of files (as the caller names them) under their locks, planning again
// when the files moved under it; a preview runs as it is.
func oneShot[R any](e *Engine, files []string, opts Options, plan func() (R, error)) (R, error) {
	if opts.Preview {
		return plan()
	}
	if e.Approve == nil {
		unlock := e.lockFiles(files)
		defer unlock()
	}
	for attempt := 1; ; attempt++ {
		res, err := plan()
		var moved movedError
		if errors.As(err, &moved) && e.Approve == nil && attempt < replans {
			continue
		}
		return res, err
	}
}

// lockFiles takes the locks of files (in one order, so two changes never
// wait on each other) and returns the function that lets them go.
func (e *Engine) lockFiles(files []string) func() {
	var stripes []int
	for _, f := range files {
		abs, err := e.root.Resolve(f)
		if err != nil {
			continue // the plan reports it
		}
		h := fnv.New32a()
		h.Write([]byte(abs))
		stripes = append(stripes, int(h.Sum32()%fileLockStripes))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		e.fileLocks[i].Lock()
	}
	return func() {
		for _, i := range stripes {
			e.fileLocks[i].Unlock()
		}
	}
}
