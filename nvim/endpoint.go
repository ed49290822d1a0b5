package nvim

import (
	"reflect"
	"unsafe"

	"github.com/neovim/go-client/msgpack/rpc"
	"github.com/neovim/go-client/nvim"
)

// endpointOf is v's msgpack-RPC connection, which go-client keeps to itself
// (the field ep of its Nvim): nvbridge sends its starts through it as
// notifications (starts.go: notifyBatch), which go-client's Nvim cannot
// send (every method of it waits for an answer). nil when the field is not
// there or not of that type (another go-client): starts are then requests,
// as before; TestEndpointOf says which.
func endpointOf(v *nvim.Nvim) *rpc.Endpoint {
	if v == nil {
		return nil
	}
	f := reflect.ValueOf(v).Elem().FieldByName("ep")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*rpc.Endpoint]() {
		return nil
	}
	return *(**rpc.Endpoint)(unsafe.Pointer(f.UnsafeAddr()))
}
