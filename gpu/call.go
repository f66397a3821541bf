package gpu

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// ccall calls the C function at fn with integer/pointer arguments and returns its int result
// (CUresult and nvrtcResult are C enums, i.e. 32-bit ints).
//
// Like purego.SyscallN it is marked uintptrescapes, so uintptr(unsafe.Pointer(&x)) written in the
// argument list keeps x alive (and on the heap) for the duration of the call.
//
//go:uintptrescapes
func ccall(fn uintptr, args ...uintptr) int32 {
	r1, _, _ := purego.SyscallN(fn, args...)
	return int32(r1)
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cBytes returns s as a NUL-terminated byte slice (Go memory: pin it across the call).
func cBytes(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
