package nvim

import "github.com/neovim/go-client/msgpack"

// MarshalMsgPack writes the ReadSpec as go-client's encoder writes the
// struct from its tags (a map of its fields in their order, positions,
// also and chain left out when empty, a nil slice or map as nil), member by member: the
// struct went through go-client's reflection, a lookup and an interface
// conversion per field and per map entry, on the way of every read
// (TestReadSpecEncodesAsItsStruct holds the two to the same bytes).
func (r ReadSpec) MarshalMsgPack(e *msgpack.Encoder) error {
	n := int64(13)
	if len(r.Positions) > 0 {
		n++
	}
	if len(r.Also) > 0 {
		n++
	}
	if len(r.Chain) > 0 {
		n++
	}
	if r.Snapshot != nil {
		n++
	}
	p := packer{e: e}
	p.do(e.PackMapLen(n))
	p.str("path", r.Path)
	p.int("line", r.Line)
	p.str("text", r.Text)
	if len(r.Positions) > 0 {
		p.key("positions")
		p.do(e.PackMapLen(int64(len(r.Positions))))
		for k, v := range r.Positions {
			p.int(k, v)
		}
	}
	p.int("character", r.Character)
	p.str("method", r.Method)
	p.str("params", r.Params)
	p.int("params_at", r.ParamsAt)
	p.key("params_bare")
	p.do(e.PackBool(r.ParamsBare))
	if len(r.Also) > 0 {
		p.strs("also", r.Also)
	}
	if len(r.Chain) > 0 {
		p.strs("chain", r.Chain)
	}
	p.int("block", r.Block)
	p.strs("methods", r.Methods)
	p.int("grace_ms", r.GraceMs)
	p.bools("ready_names", r.ReadyNames)
	p.bools("analysed", r.Analysed)
	if r.Snapshot != nil {
		p.key("snapshot")
		p.do(e.Encode(r.Snapshot))
	}
	return p.err
}

// packer writes members until a write fails; err is the first failure.
type packer struct {
	e   *msgpack.Encoder
	err error
}

func (p *packer) do(err error) {
	if p.err == nil {
		p.err = err
	}
}

func (p *packer) key(k string) {
	if p.err == nil {
		p.err = p.e.PackString(k)
	}
}

func (p *packer) str(k, v string) {
	p.key(k)
	if p.err == nil {
		p.err = p.e.PackString(v)
	}
}

func (p *packer) int(k string, v int) {
	p.key(k)
	if p.err == nil {
		p.err = p.e.PackInt(int64(v))
	}
}

func (p *packer) strs(k string, v []string) {
	p.key(k)
	if v == nil {
		p.do(p.e.PackNil())
		return
	}
	p.do(p.e.PackArrayLen(int64(len(v))))
	for _, s := range v {
		if p.err == nil {
			p.err = p.e.PackString(s)
		}
	}
}

func (p *packer) bools(k string, v map[string]bool) {
	p.key(k)
	if v == nil {
		p.do(p.e.PackNil())
		return
	}
	p.do(p.e.PackMapLen(int64(len(v))))
	for name, b := range v {
		p.key(name)
		if p.err == nil {
			p.err = p.e.PackBool(b)
		}
	}
}

// MarshalMsgPack writes the options as go-client's encoder writes the
// struct (TestSnapshotOptionsEncodeAsTheirStruct), without its reflection:
// a rename's read carries them (ReadSpec.Snapshot), on its way to Neovim,
// where the struct's encoding took about 30 us.
func (o SnapshotOptions) MarshalMsgPack(e *msgpack.Encoder) error {
	n := int64(2)
	for _, set := range []bool{len(o.Known) > 0, o.APILinesMin != 0, o.TrackMin != 0, o.DiskText} {
		if set {
			n++
		}
	}
	p := packer{e: e}
	p.do(e.PackMapLen(n))
	p.key("reconcile")
	p.do(e.PackBool(o.Reconcile))
	p.key("with_disk")
	p.do(e.PackBool(o.WithDisk))
	if len(o.Known) > 0 {
		p.key("known")
		p.do(e.PackMapLen(int64(len(o.Known))))
		for path, k := range o.Known {
			p.key(path)
			p.do(e.PackMapLen(5))
			p.int("bufnr", k.Bufnr)
			p.int("changedtick", k.ChangedTick)
			p.str("fileformat", k.FileFormat)
			p.key("eol")
			p.do(e.PackBool(k.EOL))
			p.key("bomb")
			p.do(e.PackBool(k.Bomb))
		}
	}
	if o.APILinesMin != 0 {
		p.int("api_lines_min", o.APILinesMin)
	}
	if o.TrackMin != 0 {
		p.int("track_min", o.TrackMin)
	}
	if o.DiskText {
		p.key("disk_text")
		p.do(e.PackBool(o.DiskText))
	}
	return p.err
}
