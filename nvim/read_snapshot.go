package nvim

// The snapshot of the file a read is asked in, taken by read.lua in the
// read's own call once its request went (ReadSpec.Snapshot), rather than
// by a call of its own made beside it: a rename's preview plans its
// change on that file's snapshot, and the second call cost about 0.12 ms
// of nvbridge's CPU and 0.16 ms of Neovim's on every rename (the message,
// its dispatch and compile, the answer's wait and hand-offs), where
// snapshot.files itself took some 12 us. read.lua sends it with
// nvbridge_snapshot (as vim.mpack's bytes: a value that does not decode is
// an error here, not a connection go-client closes) ahead of the read's
// nvbridge_done, which go-client hands on after it, in order.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/neovim/go-client/msgpack"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// ReadSnapshot is a snapshot taken with a read (ReadSnapshotThen), as
// read.lua sent it; SnapshotOf makes it what Snapshot answers.
type ReadSnapshot struct {
	paths []string
	opts  SnapshotOptions
	data  []byte // snapshot.files' answer, vim.mpack-encoded
}

// ReadSnapshotThen is ReadThen, with the snapshot of spec.Path taken in
// the same call once the request went (where a Snapshot called from sent
// would take it) and given to got before the read's answer is; got(nil)
// when none was taken (nothing was sent, or Lua failed to take it: the
// caller snapshots on its own). got is called once, and must not block
// (it may run on the connection's goroutine).
func (s *Session) ReadSnapshotThen(ctx context.Context, spec ReadSpec, sent func(), got func(*ReadSnapshot)) (json.RawMessage, error) {
	paths := []string{spec.Path}
	opts := s.snapshotOptions(paths, SnapshotOptions{})
	spec.Snapshot = &opts
	var once sync.Once
	deliver := func(r *ReadSnapshot) { once.Do(func() { got(r) }) }
	raw, err := s.startSinking(ctx, luaRead.f, sent, func(data []byte) {
		if data == nil {
			deliver(nil)
			return
		}
		deliver(&ReadSnapshot{paths: paths, opts: opts, data: data})
	}, spec)
	deliver(nil) // none came with the answer
	return raw, err
}

// snapshotReaders are the buffered readers SnapshotOf decodes through:
// go-client's NewDecoder makes a 4 KiB one for each decoder, unless it is
// handed one that size (bufio.NewReaderSize takes it as it is), 4 KiB of
// the ~70 KiB a rename preview on zap allocates. The decoded strings are
// copies: nothing refers to a reader once it is back in the pool.
var snapshotReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// SnapshotOf is the snapshot r carries, as Snapshot answers it for the
// same file (kept in ctx's snapshot memo, where Snapshot finds it).
func (s *Session) SnapshotOf(ctx context.Context, r *ReadSnapshot) ([]FileSnapshot, error) {
	var out []FileSnapshot
	br := snapshotReaders.Get().(*bufio.Reader)
	br.Reset(bytes.NewReader(r.data))
	err := msgpack.NewDecoder(br).Decode(&out)
	br.Reset(nil)
	snapshotReaders.Put(br)
	if err != nil {
		return nil, fmt.Errorf("snapshot with a read: %w", err)
	}
	if len(out) != len(r.paths) {
		return nil, fmt.Errorf("snapshot with a read: %d files for %d paths", len(out), len(r.paths))
	}
	out, err = s.finishSnapshot(ctx, out, r.opts)
	if err != nil {
		return nil, err
	}
	if memo := memoOf(ctx); memo != nil {
		memo.store(r.paths, out)
	}
	return out, nil
}

// onSnapshot receives nvbridge_snapshot(id, data): data is nil when
// read.lua could not take the snapshot. Its parameters take any value
// (a notification that does not decode into them would close the
// connection: see onDone).
func (s *Session) onSnapshot(idArg any, data *doneResult) {
	defer safego.Recover("nvbridge_snapshot", nil)
	id, ok := toInt64(idArg)
	if !ok {
		return
	}
	s.mu.Lock()
	sink := s.sinks[id]
	s.mu.Unlock()
	if sink == nil {
		return
	}
	var b []byte
	if data != nil && len(*data) > 0 {
		b = *data
	}
	s.trace.add(TraceEntry{At: time.Now(), Kind: "rpc", Text: fmt.Sprintf("nvbridge.snapshot.files([1 strings]) with read #%d (%d bytes)", id, len(b))})
	sink(b)
}
