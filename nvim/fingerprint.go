package nvim

import (
	"encoding/binary"
	"fmt"
)

// Fingerprint is buffers.lua's content fingerprint under LuaJIT: FNV-1a
// over the data's 64-bit words in the machine's byte order (as LuaJIT
// reads them), then its remaining bytes one by one, "fnv64:" 16 hex
// digits ":" length.
func Fingerprint(data []byte) string {
	const prime, basis = 0x100000001b3, 0xcbf29ce484222325
	h := uint64(basis)
	n := len(data)
	words := n / 8
	for i := range words {
		h = (h ^ binary.NativeEndian.Uint64(data[i*8:])) * prime
	}
	for _, c := range data[words*8:] {
		h = (h ^ uint64(c)) * prime
	}
	return fmt.Sprintf("fnv64:%016x:%d", h, n)
}
