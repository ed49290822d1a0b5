package nvim

// The typed boundary between Go and the embedded Lua: every Lua function Go
// calls is one value declared in entrypoints.go, with its module, its name
// and (by its Go type) the number and types of the arguments Go passes.
// Module and function names live there only; the rest of nvbridge calls the
// Session methods beside them. TestLuaEntryPoints loads every module in a
// real Neovim and checks that each declared function exists and takes the
// arguments Go passes, so a new declaration is checked without more work.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/neovim/go-client/nvim"
)

// luaFunc is one Lua function Go calls.
type luaFunc struct {
	module, name string
	// nargs is how many arguments Go passes. An asynchronous operation
	// (async) is called with the channel and the operation's id before
	// them and answers with nvbridge_done.
	nargs int
	async bool
	// trace, when set, says how an operation appears in the trace (its
	// kind and its text after the id); else "async" and name(args).
	trace func(args []any) (kind, text string)
}

func (f *luaFunc) String() string { return f.module + "." + f.name }

// luaFuncs is every declared entry point, in declaration order.
var luaFuncs []*luaFunc

func declare(module, name string, nargs int, async bool) *luaFunc {
	f := &luaFunc{module: module, name: name, nargs: nargs, async: async}
	luaFuncs = append(luaFuncs, f)
	return f
}

// Synchronous entry points, by arity: call runs module.name(args...) and
// decodes its return value into result (nil: the value is dropped).
type (
	lua0                    struct{ f *luaFunc }
	lua1[A any]             struct{ f *luaFunc }
	lua2[A, B any]          struct{ f *luaFunc }
	lua3[A, B, C any]       struct{ f *luaFunc }
	lua4[A, B, C, D any]    struct{ f *luaFunc }
	lua5[A, B, C, D, E any] struct{ f *luaFunc }
)

func fn0(module, name string) lua0 { return lua0{declare(module, name, 0, false)} }
func fn1[A any](module, name string) lua1[A] {
	return lua1[A]{declare(module, name, 1, false)}
}
func fn2[A, B any](module, name string) lua2[A, B] {
	return lua2[A, B]{declare(module, name, 2, false)}
}
func fn3[A, B, C any](module, name string) lua3[A, B, C] {
	return lua3[A, B, C]{declare(module, name, 3, false)}
}
func fn4[A, B, C, D any](module, name string) lua4[A, B, C, D] {
	return lua4[A, B, C, D]{declare(module, name, 4, false)}
}
func fn5[A, B, C, D, E any](module, name string) lua5[A, B, C, D, E] {
	return lua5[A, B, C, D, E]{declare(module, name, 5, false)}
}

func (l lua0) call(ctx context.Context, s *Session, result any) error {
	return s.call(ctx, l.f, result)
}
func (l lua1[A]) call(ctx context.Context, s *Session, result any, a A) error {
	return s.call(ctx, l.f, result, a)
}

// callOn runs l on a Neovim without a Session (ConfigureAsEmbedded: one
// the caller started itself).
func (l lua1[A]) callOn(v *nvim.Nvim, result any, a A) error {
	return v.ExecLua(callCode, result, l.f.module, l.f.name, a)
}
func (l lua2[A, B]) call(ctx context.Context, s *Session, result any, a A, b B) error {
	return s.call(ctx, l.f, result, a, b)
}
func (l lua3[A, B, C]) call(ctx context.Context, s *Session, result any, a A, b B, c C) error {
	return s.call(ctx, l.f, result, a, b, c)
}
func (l lua4[A, B, C, D]) call(ctx context.Context, s *Session, result any, a A, b B, c C, d D) error {
	return s.call(ctx, l.f, result, a, b, c, d)
}
func (l lua5[A, B, C, D, E]) call(ctx context.Context, s *Session, result any, a A, b B, c C, d D, e E) error {
	return s.call(ctx, l.f, result, a, b, c, d, e)
}

// Asynchronous operations, by arity: start runs module.name(channel, id,
// args...) and waits for its nvbridge_done (see Session.start).
type (
	op0                    struct{ f *luaFunc }
	op1[A any]             struct{ f *luaFunc }
	op2[A, B any]          struct{ f *luaFunc }
	op3[A, B, C any]       struct{ f *luaFunc }
	op4[A, B, C, D any]    struct{ f *luaFunc }
	op5[A, B, C, D, E any] struct{ f *luaFunc }
)

func async0(module, name string) op0 { return op0{declare(module, name, 0, true)} }
func async1[A any](module, name string) op1[A] {
	return op1[A]{declare(module, name, 1, true)}
}
func async2[A, B any](module, name string) op2[A, B] {
	return op2[A, B]{declare(module, name, 2, true)}
}
func async3[A, B, C any](module, name string) op3[A, B, C] {
	return op3[A, B, C]{declare(module, name, 3, true)}
}
func async4[A, B, C, D any](module, name string) op4[A, B, C, D] {
	return op4[A, B, C, D]{declare(module, name, 4, true)}
}
func async5[A, B, C, D, E any](module, name string) op5[A, B, C, D, E] {
	return op5[A, B, C, D, E]{declare(module, name, 5, true)}
}

func (o op1[A]) start(ctx context.Context, s *Session, a A) (json.RawMessage, error) {
	return s.start(ctx, o.f, a)
}
func (o op2[A, B]) start(ctx context.Context, s *Session, a A, b B) (json.RawMessage, error) {
	return s.start(ctx, o.f, a, b)
}
func (o op3[A, B, C]) start(ctx context.Context, s *Session, a A, b B, c C) (json.RawMessage, error) {
	return s.start(ctx, o.f, a, b, c)
}
func (o op4[A, B, C, D]) start(ctx context.Context, s *Session, a A, b B, c C, d D) (json.RawMessage, error) {
	return s.start(ctx, o.f, a, b, c, d)
}
func (o op5[A, B, C, D, E]) start(ctx context.Context, s *Session, a A, b B, c C, d D, e E) (json.RawMessage, error) {
	return s.start(ctx, o.f, a, b, c, d, e)
}

// callCode runs require(module)[name](args...): the Lua of every call and
// of a lone start.
const callCode = "local module, name = ...; return require(module)[name](select(3, ...))"

// call runs f(args...) and decodes its return value into result.
func (s *Session) call(ctx context.Context, f *luaFunc, result any, args ...any) error {
	if f.async || len(args) != f.nargs {
		// The typed declarations make this unreachable; it guards the
		// package's own uses of call.
		return fmt.Errorf("nvim: %s called with %d arguments, declared with %d", f, len(args), f.nargs)
	}
	return s.execLua(ctx, f.String()+"("+describeArgs(args)+")", callCode, result, append([]any{f.module, f.name}, args...)...)
}
