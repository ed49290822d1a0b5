package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// commitEnv is a workspace root with a private journal folder.
type commitEnv struct {
	t    *testing.T
	root Root
}

func newCommitEnv(t *testing.T, files map[string]string) *commitEnv {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
	}
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &commitEnv{t: t, root: r}
}

func (c *commitEnv) abs(rel string) string { return filepath.Join(c.root.Dir(), rel) }

func (c *commitEnv) read(rel string) string {
	c.t.Helper()
	b, err := os.ReadFile(c.abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

// clean fails when a commit left a temporary file, a backup or a journal.
func (c *commitEnv) clean() {
	c.t.Helper()
	_ = filepath.WalkDir(c.root.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".nvbridge-") {
			c.t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if entries, err := os.ReadDir(c.root.JournalDir()); err == nil && len(entries) > 0 {
		c.t.Errorf("journal folder not empty: %d entries", len(entries))
	}
}

func (c *commitEnv) write(rel, data string) DiskOp {
	return DiskOp{Kind: "write", Path: c.abs(rel), Data: []byte(data)}
}

func TestCommitWritesCreatesRemoves(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"a.txt": "old a\n", "b.txt": "old b\n", "sub/c.txt": "c\n"})
	if err := os.Chmod(c.abs("a.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	create := c.write("new/deep/d.txt", "d\n")
	create.Create = true
	out, err := c.root.Commit("cs_test1", []DiskOp{
		c.write("a.txt", "new a\n"),
		create,
		{Kind: "remove", Path: c.abs("b.txt")},
		c.write("sub/c.txt", ""),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.State != DiskNew {
			t.Errorf("%s: %s", o.Path, o.State)
		}
	}
	want := map[string]string{"a.txt": "new a\n", "new/deep/d.txt": "d\n", "b.txt": "<missing>", "sub/c.txt": ""}
	for rel, w := range want {
		if got := c.read(rel); got != w {
			t.Errorf("%s = %q, want %q", rel, got, w)
		}
	}
	if fi, err := os.Stat(c.abs("a.txt")); err != nil || fi.Mode().Perm() != 0o751 {
		t.Errorf("a.txt's mode = %v, %v; want 0751 kept", fi.Mode(), err)
	}
	c.clean()
}

func TestCommitRefusesOutsideAndLinks(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "victim.txt"), "outside\n")
	c := newCommitEnv(t, map[string]string{"in/keep.txt": "keep\n", "hard.txt": "hard\n"})
	if err := os.Symlink(outside, c.abs("out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim.txt"), c.abs("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(c.abs("hard.txt"), filepath.Join(outside, "hard-other.txt")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		op   DiskOp
		code apierr.Code
	}{
		{c.write("out/victim.txt", "pwned\n"), apierr.InvalidParameter},
		{c.write("out/new.txt", "pwned\n"), apierr.InvalidParameter},
		{DiskOp{Kind: "remove", Path: c.abs("out/victim.txt")}, apierr.InvalidParameter},
		{c.write("link.txt", "pwned\n"), apierr.InvalidParameter},
		{c.write("hard.txt", "pwned\n"), apierr.PreconditionFailed},
		{c.write("../escape.txt", "pwned\n"), apierr.InvalidParameter},
		{c.write(".git/config", "pwned\n"), apierr.PreconditionFailed},
	}
	for _, tc := range cases {
		// With an ordinary write first: a refusal leaves it undone too.
		_, err := c.root.Commit("cs_refuse", []DiskOp{c.write("in/keep.txt", "changed\n"), tc.op}, nil)
		if apierr.CodeOf(err) != tc.code {
			t.Errorf("%s %s: %v, want %s", tc.op.Kind, c.root.Rel(tc.op.Path), err, tc.code)
		}
		if got := c.read("in/keep.txt"); got != "keep\n" {
			t.Fatalf("in/keep.txt = %q after a refused commit", got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.txt")); string(b) != "outside\n" {
		t.Errorf("outside file = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "hard-other.txt")); string(b) != "hard\n" {
		t.Errorf("outside hard link = %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("outside holds %d files", len(entries))
	}
	c.clean()
}

func TestCommitAllowedHardLinkWritesInPlace(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"hard.txt": "hard\n"})
	other := filepath.Join(c.root.Dir(), "other-name.txt")
	if err := os.Link(c.abs("hard.txt"), other); err != nil {
		t.Fatal(err)
	}
	c.root.policy.allowHardlink = true
	if _, err := c.root.Commit("cs_hard", []DiskOp{c.write("hard.txt", "both\n")}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); string(b) != "both\n" {
		t.Errorf("the other name reads %q: the write did not go through the link", b)
	}
	c.clean()
}

// TestCommitFailureRollsBack: a step failing at any point of any file
// leaves every file as it was, and no leftovers.
func TestCommitFailureRollsBack(t *testing.T) {
	for _, step := range []string{"temp", "journal", "rename"} {
		for i := 0; i < 3; i++ {
			if step == "journal" && i > 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s %d", step, i), func(t *testing.T) {
				c := newCommitEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
				hooks := &CommitHooks{Fail: func(s string, k int) error {
					if s == step && k == i {
						return syscall.EPERM
					}
					return nil
				}}
				out, err := c.root.Commit("cs_fail", []DiskOp{
					c.write("a.txt", "A\n"), {Kind: "remove", Path: c.abs("b.txt")}, c.write("n/new.txt", "new\n"),
				}, hooks)
				if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "nothing was changed") {
					t.Fatalf("err = %v", err)
				}
				for _, o := range out {
					if o.State != DiskOld {
						t.Errorf("%s: %s", o.Path, o.State)
					}
				}
				for rel, w := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "n/new.txt": "<missing>"} {
					if got := c.read(rel); got != w {
						t.Errorf("%s = %q, want %q", rel, got, w)
					}
				}
				if _, err := os.Stat(c.abs("n")); err == nil {
					t.Errorf("the folder n made for the new file is left")
				}
				c.clean()
			})
		}
	}
}

// TestCommitRollbackFailureIsPartial: when putting a file back fails too,
// the answer is PARTIAL_RESULT naming where each file stands, and the next
// Recover finishes the rollback.
func TestCommitRollbackFailureIsPartial(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	hooks := &CommitHooks{Fail: func(s string, k int) error {
		if (s == "rename" && k == 1) || (s == "rollback" && k == 0) {
			return syscall.EIO
		}
		return nil
	}}
	_, err := c.root.Commit("cs_partial", []DiskOp{c.write("a.txt", "A\n"), c.write("b.txt", "B\n")}, hooks)
	e := apierr.As(err)
	if e == nil || e.Code != apierr.PartialResult {
		t.Fatalf("err = %v", err)
	}
	files := e.Details.(map[string]any)["files"].([]DiskOutcome)
	if files[0].State != DiskNew || files[1].State != DiskOld {
		t.Errorf("outcomes = %+v", files)
	}
	if c.read("a.txt") != "A\n" || c.read("b.txt") != "b\n" {
		t.Fatalf("disk: a=%q b=%q", c.read("a.txt"), c.read("b.txt"))
	}
	recs := c.root.Recover()
	if len(recs) != 1 || recs[0].Outcome != "rolled back" {
		t.Fatalf("recover = %+v", recs)
	}
	if c.read("a.txt") != "a\n" || c.read("b.txt") != "b\n" {
		t.Errorf("after recover: a=%q b=%q", c.read("a.txt"), c.read("b.txt"))
	}
	if got := c.root.Recoveries(); len(got) != 1 || got[0].ID != "cs_partial" {
		t.Errorf("Recoveries = %+v", got)
	}
	c.clean()
}

// TestCommitCrashThenRecover: a commit stopped at any step (as by kill -9)
// is settled by the next Recover: all old before the journal says commit,
// all new after; never a mix.
func TestCommitCrashThenRecover(t *testing.T) {
	const n = 4
	type stop struct {
		step string
		i    int
	}
	var stops []stop
	for i := 0; i < n; i++ {
		stops = append(stops, stop{"temp", i}, stop{"rename", i})
	}
	stops = append(stops, stop{"journal", 0}, stop{"done", 0})
	for _, st := range stops {
		t.Run(fmt.Sprintf("%s %d", st.step, st.i), func(t *testing.T) {
			files := map[string]string{}
			for i := 0; i < n; i++ {
				files[fmt.Sprintf("f%d.txt", i)] = fmt.Sprintf("old %d\n", i)
			}
			c := newCommitEnv(t, files)
			var ops []DiskOp
			for i := 0; i < n-1; i++ {
				ops = append(ops, c.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("new %d\n", i)))
			}
			ops = append(ops, DiskOp{Kind: "remove", Path: c.abs(fmt.Sprintf("f%d.txt", n-1))})
			create := c.write("made/g.txt", "g\n")
			create.Create = true
			ops = append(ops, create)
			hooks := &CommitHooks{Crash: func(s string, k int) bool { return s == st.step && k == st.i }}
			if _, err := c.root.Commit("cs_crash", ops, hooks); !errors.Is(err, errCrash) {
				t.Fatalf("commit: %v", err)
			}
			recs := c.root.Recover()
			if len(recs) != 1 {
				t.Fatalf("recover settled %d commits", len(recs))
			}
			wantNew := st.step == "rename" || st.step == "done"
			wantOutcome := map[bool]string{true: "completed", false: "rolled back"}[wantNew]
			if recs[0].Outcome != wantOutcome {
				t.Errorf("outcome %q, want %q (%+v)", recs[0].Outcome, wantOutcome, recs[0].Files)
			}
			for i := 0; i < n-1; i++ {
				want := fmt.Sprintf("old %d\n", i)
				if wantNew {
					want = fmt.Sprintf("new %d\n", i)
				}
				if got := c.read(fmt.Sprintf("f%d.txt", i)); got != want {
					t.Errorf("f%d.txt = %q, want %q", i, got, want)
				}
			}
			last, made := c.read(fmt.Sprintf("f%d.txt", n-1)), c.read("made/g.txt")
			if wantNew && (last != "<missing>" || made != "g\n") || !wantNew && (last == "<missing>" || made != "<missing>") {
				t.Errorf("removed file = %q, created file = %q (new: %v)", last, made, wantNew)
			}
			c.clean()
		})
	}
}

// TestCommitRecoverLeavesOthersChanges: a file somebody changed after the
// crash is left as it is and reported.
func TestCommitRecoverLeavesOthersChanges(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	hooks := &CommitHooks{Crash: func(s string, k int) bool { return s == "rename" && k == 0 }}
	if _, err := c.root.Commit("cs_other", []DiskOp{c.write("a.txt", "A\n"), c.write("b.txt", "B\n")}, hooks); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	write(t, c.abs("a.txt"), "the user's\n")
	recs := c.root.Recover()
	if len(recs) != 1 || recs[0].Outcome != "partial" || recs[0].Files[0].State != DiskUnknown || recs[0].Files[1].State != DiskNew {
		t.Fatalf("recover = %+v", recs)
	}
	if c.read("a.txt") != "the user's\n" || c.read("b.txt") != "B\n" {
		t.Errorf("a=%q b=%q", c.read("a.txt"), c.read("b.txt"))
	}
}

// TestCommitLockedJournalIsNotRecovered: a commit under way in another
// process (its lock held) is never settled by Recover.
func TestCommitLockedJournalIsNotRecovered(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"a.txt": "a\n"})
	hooks := &CommitHooks{Crash: func(s string, k int) bool { return s == "rename" && k == 0 }}
	if _, err := c.root.Commit("cs_live", []DiskOp{c.write("a.txt", "A\n")}, hooks); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	held, err := lockFile(filepath.Join(c.root.JournalDir(), "cs_live.lock"), false)
	if err != nil {
		t.Fatal(err)
	}
	if recs := c.root.Recover(); len(recs) != 0 {
		t.Fatalf("a locked commit was settled: %+v", recs)
	}
	held.Close()
	if recs := c.root.Recover(); len(recs) != 1 || recs[0].Outcome != "completed" {
		t.Fatalf("recover = %+v", recs)
	}
}

// TestCommitSwapRace is the attacker's loop: a folder inside the root and a
// symlink to a folder outside are swapped (renameat2 RENAME_EXCHANGE) as
// fast as possible while commits write into the folder and create files in
// it. No file outside may ever be created or changed. make fuzz runs it
// longer (NVBRIDGE_SWAP_ROUNDS).
func TestCommitSwapRace(t *testing.T) {
	rounds := 400
	if v := os.Getenv("NVBRIDGE_SWAP_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	outside := t.TempDir()
	write(t, filepath.Join(outside, "f.txt"), "outside\n")
	c := newCommitEnv(t, map[string]string{"race/f.txt": "inside\n"})
	if err := os.Symlink(outside, c.abs("racelnk")); err != nil {
		t.Fatal(err)
	}
	dirfd, err := syscall.Open(c.root.Dir(), syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dirfd)
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := renameExchange(dirfd, "race", "racelnk"); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps.Add(1)
		}
	}()
	var refused, landed int
	for i := 0; i < rounds; i++ {
		create := c.write(fmt.Sprintf("race/new%d.txt", i), "new\n")
		create.Create = true
		_, err := c.root.Commit(fmt.Sprintf("cs_race%d", i), []DiskOp{c.write("race/f.txt", fmt.Sprintf("round %d\n", i)), create}, nil)
		if err != nil {
			refused++
		} else {
			landed++
		}
	}
	stop.Store(true)
	wg.Wait()
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files appeared outside the root: %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
		t.Errorf("the outside file was overwritten: %q", b)
	}
	t.Logf("%d rounds (%d landed inside, %d refused), %d swaps", rounds, landed, refused, swaps.Load())
	if swaps.Load() < int64(rounds) {
		t.Errorf("only %d swaps during %d rounds: the race was not exercised", swaps.Load(), rounds)
	}
}

// renameExchange swaps two names in dirfd atomically.
func renameExchange(dirfd int, a, b string) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return err
	}
	const renameExchangeFlag = 2 // RENAME_EXCHANGE
	_, _, errno := syscall.Syscall6(sysRenameat2, uintptr(dirfd), uintptr(unsafePointer(pa)), uintptr(dirfd), uintptr(unsafePointer(pb)), renameExchangeFlag, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// TestCommitFileSizeLimit: under a file-size limit the file larger than it
// is refused and every file keeps its old content (run in a child
// process: the limit is the process's).
func TestCommitFileSizeLimit(t *testing.T) {
	if os.Getenv("NVBRIDGE_FSIZE_CHILD") == "1" {
		fsizeChild()
		return
	}
	dir := t.TempDir()
	big := strings.Repeat("old line of a big file\n", 2000) // 46,000 bytes
	write(t, filepath.Join(dir, "big.txt"), big)
	write(t, filepath.Join(dir, "small.txt"), "small\n")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCommitFileSizeLimit$")
	cmd.Env = append(os.Environ(), "NVBRIDGE_FSIZE_CHILD=1", "NVBRIDGE_FSIZE_ROOT="+dir, "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OPERATION_FAILED") || !strings.Contains(string(out), "size limit") {
		t.Errorf("child output: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "big.txt")); string(b) != big {
		t.Errorf("big.txt changed: %d bytes", len(b))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "small.txt")); string(b) != "small\n" {
		t.Errorf("small.txt = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %d entries", len(entries))
	}
}

func fsizeChild() {
	lim := syscall.Rlimit{Cur: 20000, Max: 20000}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	r, err := New(os.Getenv("NVBRIDGE_FSIZE_ROOT"))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	_, err = r.Commit("cs_fsize", []DiskOp{
		{Kind: "write", Path: filepath.Join(r.Dir(), "small.txt"), Data: []byte("SMALL\n")},
		{Kind: "write", Path: filepath.Join(r.Dir(), "big.txt"), Data: []byte(strings.Repeat("new line of a big file\n", 2000))},
	}, nil)
	fmt.Println("result:", err)
	os.Exit(0)
}

// TestCommitImmutableFile: a file the system will not let be replaced
// (chattr +i) refuses the whole commit; the files replaced before it are
// put back.
func TestCommitImmutableFile(t *testing.T) {
	c := newCommitEnv(t, map[string]string{"a.txt": "a\n", "locked.txt": "locked\n", "z.txt": "z\n"})
	if err := setImmutable(c.abs("locked.txt"), true); err != nil {
		t.Skipf("cannot make a file immutable here (needs root and a file system with attributes): %v", err)
	}
	defer setImmutable(c.abs("locked.txt"), false)
	_, err := c.root.Commit("cs_immutable", []DiskOp{c.write("a.txt", "A\n"), c.write("locked.txt", "L\n"), c.write("z.txt", "Z\n")}, nil)
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	for rel, w := range map[string]string{"a.txt": "a\n", "locked.txt": "locked\n", "z.txt": "z\n"} {
		if got := c.read(rel); got != w {
			t.Errorf("%s = %q", rel, got)
		}
	}
	c.clean()
}

// BenchmarkCommitOneFile: saving one 40 KB file through a commit (temporary
// file synced, hard-link backup, journal synced twice, rename, folder
// synced).
func BenchmarkCommitOneFile(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	dir := b.TempDir()
	data := []byte(strings.Repeat("a line of forty bytes, more or less...\n", 1000))
	if err := os.WriteFile(filepath.Join(dir, "f.go"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		if _, err := r.Commit(fmt.Sprintf("cs_bench%d", i), []DiskOp{{Kind: "write", Path: filepath.Join(r.Dir(), "f.go"), Data: data}}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
