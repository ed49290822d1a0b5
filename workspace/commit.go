package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/nvbridge/nvbridge/apierr"
)

// Every byte nvbridge writes to the workspace goes through Commit: a set of
// whole-file writes and removals applied all or nothing, through a handle
// on the root folder (os.Root: openat per component, no symlink out of the
// root), so a folder swapped for a symlink mid-way cannot send a write
// outside, whatever the timing. A path is never checked and then re-opened
// by name.
//
// A commit is crash-atomic. Each new content is first written to a
// temporary file beside its target and synced, each old file kept (a hard
// link, or a copy), and the set recorded in a journal outside the
// workspace; only then are the temporary files renamed into place. An
// interrupted commit (nvbridge or the machine killed) is completed or
// rolled back by the next Recover on that root: before the journal says
// "commit", nothing changed and the leftovers are removed; after it, every
// temporary file is durable and the commit is completed. A write that
// fails (a file-size limit, a full disk, an immutable file, a read-only
// folder) never touches the old file; renames already made are undone.

// DiskOp is one change a commit makes: write a file's whole content, or
// remove it.
type DiskOp struct {
	// Kind is "write" or "remove".
	Kind string
	// Path is absolute, inside the root (what Resolve returned).
	Path string
	// Data is the file's new content (write).
	Data []byte
	// Create: the file must not exist (a new file); CONFLICT if it does.
	Create bool
}

// Disk states of a file in a commit's outcome.
const (
	DiskNew     = "new"     // the change is on disk
	DiskOld     = "old"     // the file is as it was
	DiskUnknown = "unknown" // neither: something else changed it, or a step failed
)

// DiskOutcome is what a commit left on disk for one operation.
type DiskOutcome struct {
	Path  string `json:"path"` // relative to the root
	Op    string `json:"op"`   // write, remove
	State string `json:"disk"` // new, old, unknown
	Note  string `json:"note,omitempty"`
}

// CommitHooks let tests inject failures at named steps ("temp", "backup",
// "journal", "rename", "rollback") and stop a commit as a crash would
// (Crash: return at once, leaving everything as it is).
type CommitHooks struct {
	Fail  func(step string, i int) error
	Crash func(step string, i int) bool
	// Pause, when set, is called at every step first (a fault test stops
	// the process there and kills something).
	Pause func(step string, i int)
}

// errCrash is the error a commit returns when a test hook stopped it.
var errCrash = errors.New("stopped by a test hook (simulated crash)")

// commitFile is one operation, resolved against the root.
type commitFile struct {
	op       DiskOp
	rel      string   // relative path, slash-separated
	dir      string   // its folder, relative ("." for the root)
	base     string   // its name
	dirRoot  *os.Root // handle on dir: every step for this file goes through it
	existed  bool
	info     fs.FileInfo // the old file's, when it existed
	inPlace  bool        // a hard-linked file (allowed): written in place
	madeDirs []string    // folders this commit created for it, outermost first
	temp     string      // name in dir of the new content
	backup   string      // name in dir of the old file
	oldSum   string
	newSum   string
	newIno   uint64
	oldIno   uint64
	renamed  bool // the commit step was done
}

// Commit applies ops to the disk as one transaction (see the top of this
// file). id names it (temporary files and the journal carry it). It
// returns each operation's outcome; on failure the error says what
// happened and the outcomes where each file stands (all DiskOld when
// nothing changed, which the message says too).
func (r Root) Commit(id string, ops []DiskOp, hooks *CommitHooks) ([]DiskOutcome, error) {
	if hooks == nil {
		hooks = &CommitHooks{}
	}
	fail := func(step string, i int) error {
		if hooks.Fail != nil {
			return hooks.Fail(step, i)
		}
		return nil
	}
	crash := func(step string, i int) bool {
		if hooks.Pause != nil {
			hooks.Pause(step, i)
		}
		return hooks.Crash != nil && hooks.Crash(step, i)
	}

	if len(ops) == 0 {
		return nil, nil
	}
	if err := validID(id); err != nil {
		return nil, err
	}
	// A commit an earlier nvbridge left unfinished is settled first: its
	// files may be among these.
	r.Recover()

	root, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "check that the workspace folder still exists", "cannot open the workspace root %s: %v", r.dir, err)
	}
	defer root.Close()

	files := make([]*commitFile, len(ops))
	defer func() {
		for _, f := range files {
			if f != nil && f.dirRoot != nil {
				f.dirRoot.Close()
			}
		}
	}()
	seen := map[string]bool{}
	for i, op := range ops {
		f, err := r.resolveOp(root, op, id)
		if err != nil {
			return outcomes(files[:i], ops, DiskOld), err
		}
		if seen[f.rel] {
			return nil, apierr.Errorf(apierr.InvalidParameter, "report this: nvbridge asked to change one file twice in a commit", "%s appears twice in one commit", f.rel)
		}
		seen[f.rel] = true
		files[i] = f
	}

	j, err := r.openJournal(id)
	if err != nil {
		return outcomes(files, ops, DiskOld), err
	}
	defer j.unlock()
	j.State = statePrepare
	j.Entries = entriesOf(files)
	if err := j.save(); err != nil {
		j.remove()
		return outcomes(files, ops, DiskOld), journalError(err)
	}

	// Prepare: new contents in temporary files, old files kept. Nothing
	// a reader sees has changed yet.
	abort := func(cause *apierr.Error) ([]DiskOutcome, error) {
		for _, f := range files {
			f.cleanPrepared()
		}
		removeMadeDirs(root, files)
		j.remove()
		cause.Message += " (nothing was changed: every file is as it was)"
		return outcomes(files, ops, DiskOld), cause
	}
	for i, f := range files {
		if crash("temp", i) {
			return nil, errCrash
		}
		if err := fail("temp", i); err != nil {
			return abort(writeError(f.rel, "write the new content of", err))
		}
		if err := f.prepare(root); err != nil {
			return abort(apierr.As(err))
		}
	}
	j.Entries = entriesOf(files)
	j.State = stateCommit
	if crash("journal", 0) {
		return nil, errCrash
	}
	err = fail("journal", 0)
	if err == nil {
		err = j.save()
	}
	if err != nil {
		return abort(journalError(err))
	}

	// Commit: every new content is durable and recorded; rename them into
	// place.
	for i, f := range files {
		if crash("rename", i) {
			return nil, errCrash
		}
		err := fail("rename", i)
		if err == nil {
			err = f.commit()
		}
		if err != nil {
			return r.rollBack(root, j, files, ops, writeError(f.rel, "replace", err), hooks)
		}
	}
	syncDirs(files)
	if crash("done", 0) {
		return nil, errCrash
	}
	for _, f := range files {
		f.cleanPrepared() // the backups, and the copies of in-place writes
	}
	j.remove()
	return outcomes(files, ops, DiskNew), nil
}

// rollBack undoes the steps a failed commit made, newest first.
func (r Root) rollBack(root *os.Root, j *journal, files []*commitFile, ops []DiskOp, cause *apierr.Error, hooks *CommitHooks) ([]DiskOutcome, error) {
	j.State = stateRollback
	_ = j.save()
	out := outcomes(files, ops, DiskOld)
	var failed []string
	for i := len(files) - 1; i >= 0; i-- {
		f := files[i]
		var err error
		if hooks.Fail != nil {
			err = hooks.Fail("rollback", i)
		}
		if err == nil && f.renamed {
			err = f.undo()
		}
		if err != nil {
			out[i].State, out[i].Note = DiskNew, "could not be put back: "+err.Error()
			failed = append(failed, f.rel)
			continue
		}
		f.cleanPrepared()
	}
	syncDirs(files)
	if len(failed) == 0 {
		removeMadeDirs(root, files)
		j.remove()
		cause.Message += " (nothing was changed: every file is as it was)"
		return out, cause
	}
	// The journal stays: the next Recover tries again.
	return out, apierr.Errorf(apierr.PartialResult,
		"the files listed as new in details hold the change; the others are as they were. nvbridge retries the rollback at its next call or start; check those files",
		"%s; undoing the files already replaced failed for %s", cause.Message, strings.Join(failed, ", ")).WithDetails(map[string]any{"files": out})
}

// resolveOp checks one operation and opens its folder.
func (r Root) resolveOp(root *os.Root, op DiskOp, id string) (*commitFile, error) {
	if op.Kind != "write" && op.Kind != "remove" {
		return nil, apierr.Errorf(apierr.InvalidParameter, "report this", "unknown disk operation %q", op.Kind)
	}
	clean := path.Clean(strings.ReplaceAll(op.Path, string(os.PathSeparator), "/"))
	if !r.contains(clean) || clean == r.dir {
		return nil, r.outside(op.Path, "")
	}
	rel := r.Rel(clean)
	if err := r.checkPolicy(rel, clean); err != nil {
		return nil, err
	}
	f := &commitFile{op: op, rel: rel, dir: path.Dir(rel), base: path.Base(rel)}
	f.temp, f.backup = sideName(f.base, id, "new"), sideName(f.base, id, "old")

	if op.Kind == "write" {
		missing, err := missingDirs(root, f.dir)
		if err != nil {
			return nil, r.confineError(rel, "create the folder of", err)
		}
		if len(missing) > 0 {
			// A new folder: the file cannot exist yet. The folders are made
			// once the journal records them (prepare).
			f.madeDirs = missing
			return f, nil
		}
	}
	dr, err := root.OpenRoot(f.dir)
	if err != nil {
		if op.Kind == "remove" && errors.Is(err, fs.ErrNotExist) {
			return nil, apierr.Errorf(apierr.ResourceNotFound, "check the path", "%s does not exist (nothing was changed)", rel)
		}
		return nil, r.confineError(rel, "open the folder of", err)
	}
	f.dirRoot = dr
	info, err := dr.Lstat(f.base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if op.Kind == "remove" {
			return f, apierr.Errorf(apierr.ResourceNotFound, "check the path", "%s does not exist (nothing was changed)", rel)
		}
	case err != nil:
		return f, r.confineError(rel, "inspect", err)
	case info.Mode()&fs.ModeSymlink != 0:
		return f, apierr.Errorf(apierr.InvalidParameter, "nvbridge never writes through a symlink it did not resolve: check the path, then preview the change again",
			"%s is now a symlink (nothing was written)", rel)
	case !info.Mode().IsRegular():
		return f, apierr.Errorf(apierr.InvalidParameter, "name a regular file", "%s is not a regular file (nothing was written)", rel)
	default:
		if op.Create {
			return f, apierr.Errorf(apierr.Conflict, "edit the existing file instead, or delete it first", "cannot create %s: it exists now (nothing was written)", rel)
		}
		f.existed, f.info = true, info
		if links := linkCount(info); links > 1 && op.Kind == "write" {
			if !r.policy.AllowHardlinks() {
				return f, apierr.Errorf(apierr.PreconditionFailed,
					"break the link first (cp FILE FILE.tmp && mv FILE.tmp FILE), or, if every name is known to be safe, restart nvbridge with --allow-hardlinks (or set \"allow_hardlinks\": true in the user config file $XDG_CONFIG_HOME/nvbridge/config.json; the project file cannot allow it)",
					"%s has %d hard links: writing it would also change the file under its other names, which may lie outside the workspace root (nothing was written)", rel, links)
			}
			f.inPlace = true // every name keeps seeing the file
		}
	}
	return f, nil
}

// prepare writes the new content to the temporary file and keeps the old
// file (a hard link named backup, or a copy).
func (f *commitFile) prepare(root *os.Root) error {
	if f.dirRoot == nil {
		for _, d := range f.madeDirs {
			if err := root.Mkdir(d, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return writeError(f.rel, "create the folder of", err)
			}
		}
		dr, err := root.OpenRoot(f.dir)
		if err != nil {
			return writeError(f.rel, "open the folder of", err)
		}
		f.dirRoot = dr
	}
	if f.existed {
		old, err := readNoFollow(f.dirRoot, f.base)
		if err != nil {
			return writeError(f.rel, "read the old content of", err)
		}
		f.oldSum = checksum(old)
		f.oldIno = inode(f.info)
		// A hard link keeps the old file at no cost; where links are
		// refused (an immutable file, some file systems), a copy.
		if f.inPlace || f.dirRoot.Link(f.base, f.backup) != nil {
			if err := writeSynced(f.dirRoot, f.backup, old, 0o600); err != nil {
				return writeError(f.rel, "keep a copy of", err)
			}
			f.oldIno = 0
		}
	}
	if f.op.Kind == "remove" {
		return nil
	}
	f.newSum = checksum(f.op.Data)
	perm := fs.FileMode(0o666) // less the umask, as a new file of the user's
	if f.inPlace {
		// Written in place at commit; the temporary copy lets a crash
		// be completed.
		if err := writeSynced(f.dirRoot, f.temp, f.op.Data, 0o600); err != nil {
			return writeError(f.rel, "write the new content of", err)
		}
		return nil
	}
	if f.existed {
		perm = f.info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if err := writeSynced(f.dirRoot, f.temp, f.op.Data, perm); err != nil {
		return writeError(f.rel, "write the new content of", err)
	}
	if f.existed {
		// The mode of the old file, whatever the umask; its owner when we
		// may give it (as root), else the file becomes ours as on any save
		// that replaces a file.
		_ = f.dirRoot.Chmod(f.temp, perm)
		if uid, gid, ok := owner(f.info); ok && (uid != os.Getuid() || gid != os.Getgid()) {
			_ = f.dirRoot.Lchown(f.temp, uid, gid)
		}
	}
	if info, err := f.dirRoot.Lstat(f.temp); err == nil {
		f.newIno = inode(info)
	}
	return nil
}

// commit makes the change visible: the temporary file replaces (or
// creates) the target, or the target is removed.
func (f *commitFile) commit() error {
	var err error
	switch {
	case f.op.Kind == "remove":
		err = f.dirRoot.Remove(f.base)
	case f.inPlace:
		err = writeInPlace(f.dirRoot, f.base, f.op.Data)
	case !f.existed:
		// link fails when the name appeared meanwhile: a new file never
		// replaces one somebody else just made.
		if err = f.dirRoot.Link(f.temp, f.base); err == nil {
			_ = f.dirRoot.Remove(f.temp)
		} else if !errors.Is(err, fs.ErrExist) {
			if _, serr := f.dirRoot.Lstat(f.base); errors.Is(serr, fs.ErrNotExist) {
				err = f.dirRoot.Rename(f.temp, f.base)
			}
		}
	default:
		err = f.dirRoot.Rename(f.temp, f.base)
	}
	if err == nil {
		f.renamed = true
	}
	return err
}

// undo puts the old file back after commit.
func (f *commitFile) undo() error {
	switch {
	case !f.existed:
		return f.dirRoot.Remove(f.base)
	case f.inPlace:
		old, err := f.dirRoot.ReadFile(f.backup)
		if err != nil {
			return err
		}
		return writeInPlace(f.dirRoot, f.base, old)
	default:
		return f.dirRoot.Rename(f.backup, f.base)
	}
}

// cleanPrepared removes the temporary file and the backup of an operation
// whose change is not (or no longer) on disk.
func (f *commitFile) cleanPrepared() {
	if f == nil || f.dirRoot == nil {
		return
	}
	_ = f.dirRoot.Remove(f.temp)
	f.dropBackup()
}

func (f *commitFile) dropBackup() {
	if f == nil || f.dirRoot == nil {
		return
	}
	_ = f.dirRoot.Remove(f.backup)
}

// outcomes is each operation's state when all are in the same one.
func outcomes(files []*commitFile, ops []DiskOp, state string) []DiskOutcome {
	out := make([]DiskOutcome, len(ops))
	for i, op := range ops {
		out[i] = DiskOutcome{Path: op.Path, Op: op.Kind, State: state}
		if i < len(files) && files[i] != nil {
			out[i].Path = files[i].rel
		}
	}
	return out
}

// sideName is the name of a commit's temporary file or backup beside base:
// hidden, carrying the commit's id, and ending in no language's extension
// (servers and build tools ignore it).
func sideName(base, id, kind string) string {
	if len(base) > 160 {
		sum := sha256.Sum256([]byte(base))
		base = base[:64] + "~" + hex.EncodeToString(sum[:8])
	}
	return "." + base + "." + id + ".nvbridge-" + kind
}

// validID accepts the ids nvbridge makes (letters, digits, _ and -): they
// become parts of file names.
func validID(id string) error {
	if id == "" || len(id) > 64 {
		return apierr.Errorf(apierr.InvalidParameter, "report this", "bad commit id %q", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return apierr.Errorf(apierr.InvalidParameter, "report this", "bad commit id %q", id)
		}
	}
	return nil
}

// missingDirs lists the folders of dir (relative) that do not exist,
// outermost first; a component that is a file is an error.
func missingDirs(root *os.Root, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "."; d = path.Dir(d) {
		info, err := root.Lstat(d)
		if err == nil {
			if !info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
				return nil, &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append([]string{d}, missing...)
	}
	return missing, nil
}

// removeMadeDirs removes the folders a commit created, deepest first, when
// they are empty again.
func removeMadeDirs(root *os.Root, files []*commitFile) {
	for i := len(files) - 1; i >= 0; i-- {
		f := files[i]
		if f == nil {
			continue
		}
		for k := len(f.madeDirs) - 1; k >= 0; k-- {
			_ = root.Remove(f.madeDirs[k]) // fails when not empty: kept
		}
	}
}

// syncDirs makes the renames durable: each touched folder is synced once.
func syncDirs(files []*commitFile) {
	done := map[string]bool{}
	for _, f := range files {
		if f == nil || f.dirRoot == nil || done[f.dir] {
			continue
		}
		done[f.dir] = true
		if d, err := f.dirRoot.Open("."); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
}

// writeSynced creates name (it must not exist) in dir with data, durably.
func writeSynced(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dir.Remove(name)
	}
	return err
}

// writeInPlace rewrites an existing file's content without replacing it
// (its other hard links see the change). Not atomic: used only for files
// the user allowed to have other links.
func writeInPlace(dir *os.Root, name string, data []byte) error {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readNoFollow reads name in dir, refusing a symlink put in its place.
func readNoFollow(dir *os.Root, name string) ([]byte, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func owner(info fs.FileInfo) (uid, gid int, ok bool) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid), true
	}
	return 0, 0, false
}

// confineError reports a step the root handle refused or could not do.
func (r Root) confineError(rel, what string, err error) *apierr.Error {
	if isEscape(err) {
		return apierr.Errorf(apierr.InvalidParameter,
			"nvbridge never writes through a symlink out of the workspace root; remove the link, then preview the change again",
			"cannot %s %s: a folder on its path is a symlink leading out of the workspace root %s (nothing was written)", what, rel, r.dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOTDIR) {
		return apierr.Errorf(apierr.InvalidParameter, "pick a path whose folders are folders",
			"cannot %s %s: %s is a file, not a folder (nothing was written)", what, rel, pe.Path)
	}
	return writeError(rel, what, err)
}

// isEscape reports os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// writeError reports a write the system refused, saying why in the user's
// terms.
func writeError(rel, what string, err error) *apierr.Error {
	if isEscape(err) {
		return apierr.Errorf(apierr.InvalidParameter,
			"nvbridge never writes through a symlink out of the workspace root; remove the link, then preview the change again",
			"cannot %s %s: a folder on its path is a symlink leading out of the workspace root (nothing was written)", what, rel)
	}
	why, remedy := err.Error(), "fix the cause named in the message, then retry"
	switch {
	case errors.Is(err, syscall.EFBIG):
		why, remedy = "the file would exceed the size limit for files (ulimit -f)", "raise the file-size limit (ulimit -f) of the process that runs nvbridge, or make the change smaller"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		why, remedy = "the disk (or the user's quota) is full", "free some space, then retry"
	case errors.Is(err, syscall.EROFS):
		why, remedy = "the file system is read-only", "the file cannot be changed here"
	case errors.Is(err, syscall.EPERM):
		why, remedy = "the system does not permit it (an immutable or append-only file?)", "check the file's attributes (lsattr) and permissions"
	case errors.Is(err, syscall.EACCES):
		why, remedy = "permission denied", "check the permissions of the file and its folder"
	}
	return apierr.Errorf(apierr.OperationFailed, remedy, "cannot %s %s: %s", what, rel, why)
}
