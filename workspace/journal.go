package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// The journal of a commit (commit.go) lives outside the workspace, in
// nvbridge's state folder ($XDG_STATE_HOME/nvbridge/journal/<root hash>/):
// nothing of it clutters the user's project, and a repository cannot
// plant one. <id>.json is the record, rewritten whole (temporary file,
// sync, rename) at each state change; <id>.lock is held (flock) by the
// process committing, so another nvbridge on the same root never settles
// a commit still under way.

// Journal states.
const (
	statePrepare  = "prepare"  // temporary files being written: nothing changed yet
	stateCommit   = "commit"   // every new content durable: being renamed into place
	stateRollback = "rollback" // a failed commit being undone
)

type journal struct {
	Version int            `json:"version"`
	ID      string         `json:"id"`
	Root    string         `json:"root"`
	PID     int            `json:"pid"`
	Started time.Time      `json:"started"`
	State   string         `json:"state"`
	Entries []journalEntry `json:"entries"`

	dir  string   // the root's journal folder
	lock *os.File // held while this process owns the commit
}

// journalEntry is one operation of a commit, with what recovery needs to
// tell the old file, the new one and somebody else's.
type journalEntry struct {
	Op       string   `json:"op"`   // write, remove
	Path     string   `json:"path"` // relative to the root, slash-separated
	Temp     string   `json:"temp,omitempty"`
	Backup   string   `json:"backup,omitempty"`
	Existed  bool     `json:"existed"`
	InPlace  bool     `json:"in_place,omitempty"`
	OldSum   string   `json:"old_sha256,omitempty"`
	NewSum   string   `json:"new_sha256,omitempty"`
	MadeDirs []string `json:"made_dirs,omitempty"`
}

func entriesOf(files []*commitFile) []journalEntry {
	out := make([]journalEntry, len(files))
	for i, f := range files {
		out[i] = journalEntry{Op: f.op.Kind, Path: f.rel, Temp: f.temp, Backup: f.backup, Existed: f.existed,
			InPlace: f.inPlace, OldSum: f.oldSum, NewSum: f.newSum, MadeDirs: f.madeDirs}
	}
	return out
}

// JournalDir is the folder holding the journals of commits on the root.
func (r Root) JournalDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			base = filepath.Join(home, ".local", "state")
		} else {
			base = filepath.Join(os.TempDir(), "nvbridge-"+strconv.Itoa(os.Getuid()))
		}
	}
	sum := sha256.Sum256([]byte(r.dir))
	return filepath.Join(base, "nvbridge", "journal", hex.EncodeToString(sum[:8]))
}

// openJournal creates a commit's lock (held until unlock) in the root's
// journal folder.
func (r Root) openJournal(id string) (*journal, error) {
	dir := r.JournalDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "check that nvbridge's state folder ($XDG_STATE_HOME or ~/.local/state) is writable",
			"cannot create the commit journal folder %s: %v (nothing was changed)", dir, err)
	}
	lock, err := lockFile(filepath.Join(dir, id+".lock"), true)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "check that nvbridge's state folder is writable",
			"cannot lock the commit journal: %v (nothing was changed)", err)
	}
	return &journal{Version: 1, ID: id, Root: r.dir, PID: os.Getpid(), Started: time.Now().UTC(), dir: dir, lock: lock}, nil
}

// save writes the journal (temporary file, rename), durably (synced, and
// its folder) from the state commit on: a lost "prepare" record only
// leaves temporary files behind after a power loss, while "commit" and
// "rollback" decide what recovery does.
func (j *journal) save() error {
	durable := j.State != statePrepare
	data, err := json.MarshalIndent(j, "", " ")
	if err != nil {
		return err
	}
	final := filepath.Join(j.dir, j.ID+".json")
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = f.Write(data)
		if err == nil && durable {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil && durable {
		err = syncDir(j.dir)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// journalError reports a journal that could not be written.
func journalError(err error) *apierr.Error {
	if e, ok := err.(*apierr.Error); ok {
		return e
	}
	return apierr.Errorf(apierr.OperationFailed, "check that nvbridge's state folder ($XDG_STATE_HOME or ~/.local/state) is writable and not full",
		"cannot record the commit journal: %v", err)
}

// remove deletes the record (the commit is settled); unlock then lets the
// lock go.
func (j *journal) remove() {
	// Not synced: a removal lost to a power cut leaves a journal whose
	// files are all settled; Recover finds them so.
	_ = os.Remove(filepath.Join(j.dir, j.ID+".json"))
}

func (j *journal) unlock() {
	if j.lock != nil {
		_ = os.Remove(j.lock.Name())
		_ = j.lock.Close()
		j.lock = nil
	}
	_ = os.Remove(j.dir) // only when empty: the root's folder goes with its last journal
}

// lockFile opens (creating) path and takes an exclusive flock on it; with
// wait false it fails at once when another process (or another open file
// of this one) holds it.
func lockFile(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Recovery is what Recover did with a commit an earlier nvbridge (or an
// earlier call) left unfinished.
type Recovery struct {
	ID string `json:"changeset_id"`
	// Outcome: "completed" (every file holds the change), "rolled back"
	// (every file as before), or "partial" (see Files).
	Outcome string        `json:"outcome"`
	Files   []DiskOutcome `json:"files"`
	// Started is when the interrupted commit began; At when it was settled.
	Started time.Time `json:"started"`
	At      time.Time `json:"settled_at"`
	PID     int       `json:"pid"`
}

// recoveries keeps the last settlements per root, for get_status.
var recoveries = struct {
	sync.Mutex
	byRoot map[string][]Recovery
}{byRoot: map[string][]Recovery{}}

const keptRecoveries = 20

// Recoveries returns the commits settled on this root by this process,
// oldest first (at most the last 20).
func (r Root) Recoveries() []Recovery {
	recoveries.Lock()
	defer recoveries.Unlock()
	return append([]Recovery(nil), recoveries.byRoot[r.dir]...)
}

// Recover completes or rolls back every commit left unfinished on this
// root whose owner is gone: a commit that had recorded all its new
// contents ("commit") is completed, an earlier one ("prepare") or one
// being undone ("rollback") is rolled back. A file something else changed
// since is left as it is (DiskUnknown, with a note). It returns what it
// settled now; Recoveries keeps them.
func (r Root) Recover() []Recovery {
	dir := r.JournalDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var done []Recovery
	for _, name := range names {
		id := strings.TrimSuffix(name, ".json")
		if validID(id) != nil {
			continue
		}
		lock, err := lockFile(filepath.Join(dir, id+".lock"), false)
		if err != nil {
			continue // its commit is under way (here or in another nvbridge)
		}
		j := &journal{dir: dir, lock: lock}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || json.Unmarshal(data, j) != nil || j.Root != r.dir || j.ID != id {
			// Gone meanwhile (settled by its owner), or not ours to read.
			if errors.Is(err, fs.ErrNotExist) {
				j.unlock()
			} else {
				_ = lock.Close()
			}
			continue
		}
		rec := r.settle(j)
		j.unlock()
		done = append(done, rec)
	}
	if len(done) > 0 {
		recoveries.Lock()
		list := append(recoveries.byRoot[r.dir], done...)
		if len(list) > keptRecoveries {
			list = list[len(list)-keptRecoveries:]
		}
		recoveries.byRoot[r.dir] = list
		recoveries.Unlock()
	}
	return done
}

// settle completes (state commit) or rolls back (prepare, rollback) one
// journal's commit and removes the journal.
func (r Root) settle(j *journal) Recovery {
	rec := Recovery{ID: j.ID, Started: j.Started, PID: j.PID, At: time.Now().UTC()}
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		rec.Outcome = "partial"
		for _, e := range j.Entries {
			rec.Files = append(rec.Files, DiskOutcome{Path: e.Path, Op: e.Op, State: DiskUnknown, Note: "cannot open the workspace root: " + err.Error()})
		}
		return rec
	}
	defer root.Close()
	forward := j.State == stateCommit
	all := DiskOld
	if forward {
		all = DiskNew
	}
	rec.Outcome = map[bool]string{true: "completed", false: "rolled back"}[forward]
	for _, e := range j.Entries {
		o := settleEntry(root, e, j.State)
		rec.Files = append(rec.Files, o)
		if o.State != all {
			rec.Outcome = "partial"
		}
	}
	// Folders the commit made and left empty go too.
	for i := len(j.Entries) - 1; i >= 0; i-- {
		for k := len(j.Entries[i].MadeDirs) - 1; k >= 0; k-- {
			_ = root.Remove(j.Entries[i].MadeDirs[k])
		}
	}
	j.remove()
	return rec
}

// settleEntry brings one operation to the state's end: forward (commit)
// or back (prepare, rollback), only over a file still as the commit left
// it.
func settleEntry(root *os.Root, e journalEntry, state string) DiskOutcome {
	o := DiskOutcome{Path: e.Path, Op: e.Op, State: DiskUnknown}
	dr, err := root.OpenRoot(path.Dir(e.Path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !e.Existed && state != stateCommit {
			o.State = DiskOld // a new file in a folder that is gone: nothing there
		} else {
			o.Note = "cannot open its folder: " + err.Error()
		}
		return o
	}
	defer dr.Close()
	base := path.Base(e.Path)
	cur, curErr := readNoFollow(dr, base)
	missing := errors.Is(curErr, fs.ErrNotExist)
	isOld := (!e.Existed && missing) || (e.Existed && curErr == nil && checksum(cur) == e.OldSum)
	isNew := (e.Op == "remove" && missing) || (e.Op == "write" && curErr == nil && checksum(cur) == e.NewSum)
	const elsewhere = "changed by something else since the interrupted commit; left as it is"

	switch {
	case state == statePrepare:
		// Nothing is renamed before the journal says "commit": the file is
		// as nvbridge found it (or as somebody else made it since).
		o.State = DiskOld
	case state == stateCommit && isNew:
		o.State = DiskNew
	case state == stateCommit && !isOld:
		o.Note = elsewhere
	case state == stateCommit:
		if err := completeEntry(dr, e, base); err != nil {
			o.Note = "cannot complete it: " + err.Error()
		} else {
			o.State = DiskNew
		}
	case isOld: // rollback
		o.State = DiskOld
	case !isNew:
		o.Note = elsewhere
	default:
		if err := undoEntry(dr, e, base); err != nil {
			o.Note = "cannot put the old file back: " + err.Error()
		} else {
			o.State = DiskOld
		}
	}
	if o.State != DiskUnknown || state == statePrepare {
		_ = dr.Remove(e.Temp)
		_ = dr.Remove(e.Backup)
	}
	return o
}

// completeEntry does an operation's commit step after a crash.
func completeEntry(dr *os.Root, e journalEntry, base string) error {
	switch {
	case e.Op == "remove":
		return dr.Remove(base)
	case e.InPlace:
		data, err := dr.ReadFile(e.Temp)
		if err != nil {
			return err
		}
		return writeInPlace(dr, base, data)
	default:
		return dr.Rename(e.Temp, base)
	}
}

// undoEntry puts an operation's old file back after a crash.
func undoEntry(dr *os.Root, e journalEntry, base string) error {
	switch {
	case !e.Existed:
		return dr.Remove(base)
	case e.InPlace:
		old, err := dr.ReadFile(e.Backup)
		if err != nil {
			return err
		}
		return writeInPlace(dr, base, old)
	default:
		return dr.Rename(e.Backup, base)
	}
}
