package nvim

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/neovim/go-client/msgpack"
)

// readSpecFields is ReadSpec without its MarshalMsgPack: what go-client's
// encoder writes from the struct's tags.
type readSpecFields ReadSpec

// TestReadSpecEncodesAsItsStruct: ReadSpec writes the bytes go-client's
// encoder writes for its struct (maps of one entry: the order of a map's
// entries is Go's; with more, the same values), with also and chain and
// without, with nil and empty slices and maps, unicode, negative and large
// numbers.
func TestReadSpecEncodesAsItsStruct(t *testing.T) {
	full := ReadSpec{Path: "/tmp/a b/ü.go", Line: 130, Text: "\tfunc x() { // é", Positions: map[string]int{"utf-16": 3}, Character: 9,
		Method: "textDocument/definition", Params: `{"x":1}`, ParamsAt: 5, ParamsBare: true, Also: []string{"textDocument/declaration"},
		Chain: []string{"callHierarchy/incomingCalls", "callHierarchy/outgoingCalls"}, Block: 4,
		Methods: []string{"m", ""}, GraceMs: 1 << 20, ReadyNames: map[string]bool{"lua_ls": true}, Analysed: map[string]bool{"2:1": false}}
	specs := map[string]ReadSpec{
		"full":  full,
		"zero":  {},
		"empty": {Positions: map[string]int{}, Also: []string{}, Chain: []string{}, Methods: []string{}, ReadyNames: map[string]bool{}, Analysed: map[string]bool{}},
		"negative": {Line: -1, Block: -300, ParamsAt: -7, GraceMs: -1 << 40, Text: string(bytes.Repeat([]byte("x"), 70000)),
			Positions: map[string]int{"utf-8": -5}},
		"snapshot": {Path: "/tmp/ü.go", Snapshot: &SnapshotOptions{APILinesMin: 20000, TrackMin: 1024, DiskText: true,
			Known: map[string]bufferKey{"/tmp/ü.go": {Bufnr: 3, ChangedTick: 12, FileFormat: "unix", EOL: true}}}},
	}
	for name, spec := range specs {
		var got, want bytes.Buffer
		if err := msgpack.NewEncoder(&got).Encode(spec); err != nil {
			t.Fatal(err)
		}
		if err := msgpack.NewEncoder(&want).Encode(readSpecFields(spec)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: ReadSpec wrote\n% x\nits struct\n% x", name, got.Bytes(), want.Bytes())
		}
	}

	// Maps of several entries: the same values, in Go's order.
	many := full
	many.Positions = map[string]int{"utf-8": 1, "utf-16": 2, "utf-32": 3}
	many.ReadyNames = map[string]bool{"a": true, "b": false, "c": true}
	many.Analysed = map[string]bool{"1:1": true, "1:2": true}
	decoded := func(v any) any {
		var buf bytes.Buffer
		if err := msgpack.NewEncoder(&buf).Encode(v); err != nil {
			t.Fatal(err)
		}
		var out any
		if err := msgpack.NewDecoder(&buf).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := decoded(many), decoded(readSpecFields(many)); !reflect.DeepEqual(got, want) {
		t.Errorf("several entries: ReadSpec wrote %v, its struct %v", got, want)
	}
}

// snapshotOptionsFields is SnapshotOptions without its MarshalMsgPack.
type snapshotOptionsFields SnapshotOptions

// TestSnapshotOptionsEncodeAsTheirStruct: SnapshotOptions write the bytes
// go-client's encoder writes for their struct, each member set or not.
func TestSnapshotOptionsEncodeAsTheirStruct(t *testing.T) {
	one := map[string]bufferKey{"/tmp/a b/ü.go": {Bufnr: 3, ChangedTick: -1 << 40, FileFormat: "dos", EOL: true, Bomb: true}}
	for name, o := range map[string]SnapshotOptions{
		"zero":  {},
		"full":  {Reconcile: true, WithDisk: true, Known: one, APILinesMin: 20000, TrackMin: 1 << 10, DiskText: true, Parsed: true},
		"empty": {Known: map[string]bufferKey{}},
		"known": {Known: one, APILinesMin: -3},
	} {
		var got, want bytes.Buffer
		if err := msgpack.NewEncoder(&got).Encode(o); err != nil {
			t.Fatal(err)
		}
		if err := msgpack.NewEncoder(&want).Encode(snapshotOptionsFields(o)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: SnapshotOptions wrote\n% x\ntheir struct\n% x", name, got.Bytes(), want.Bytes())
		}
	}
}

func BenchmarkReadSpecEncode(b *testing.B) {
	spec := ReadSpec{Path: "/tmp/nvbridge-readsab-1/m/zap/logger.go", Line: 130, Text: "\tfunc (log *Logger) Check(lvl zapcore.Level, msg string) *zapcore.CheckedEntry {",
		Positions: map[string]int{"utf-8": 20, "utf-16": 20, "utf-32": 20}, Method: "textDocument/definition",
		Params: `{"textDocument":{"uri":"file:///tmp/nvbridge-readsab-1/m/zap/logger.go"},"position":{"line":130,"character":0}}`, Block: 4,
		Methods: []string{"textDocument/definition"}, GraceMs: 3000, ReadyNames: map[string]bool{"lua_ls": true, "taplo": true}, Analysed: map[string]bool{"2:1": true}}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	for _, c := range []struct {
		name string
		v    any
	}{{"direct", spec}, {"struct", readSpecFields(spec)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := enc.Encode(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
