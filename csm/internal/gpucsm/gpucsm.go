// Package gpucsm holds what the two GPU engines of continuous matching (csm/gcsm, batches; csm/dcsm,
// per-update waves) share: the lowering of a level of a csm.Program term into the words of a
// kernel's instruction record, the CUDA level helpers both kernels prepend (LevelSource) with
// their Go twins for the emulations, the packing and sizing of the buffers they upload, and the
// grouping of counted searches for listing through a bounded buffer (ListGroups).
package gpucsm

import (
	"math/bits"
	"unsafe"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/gpu"
)

// B2U is 1 for true, 0 for false.
func B2U(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Mask is the bit set of the positions pos.
func Mask(pos []int) uint32 {
	var m uint32
	for _, p := range pos {
		m |= 1 << p
	}
	return m
}

// Level is where an engine's level record keeps each field (word offsets; the parent fields are
// arrays indexed by the parent's rank). The kernels' #defines repeat them.
type Level struct {
	VLAny, VL, NPar, NonAdj, Inj, Above, Below int
	PPos, PELAny, PEL                          int
}

// Put writes lv's label, parents (positions and edge labels) and masks of non-neighbours,
// injectivity and symmetry bounds into r, a level record laid out by l.
func (l Level) Put(r []uint32, lv csm.LevelSpec) {
	r[l.VLAny], r[l.VL] = B2U(lv.Label.Any), lv.Label.Value
	r[l.NPar] = uint32(len(lv.Parents))
	r[l.NonAdj], r[l.Inj], r[l.Above], r[l.Below] = Mask(lv.NonAdj), Mask(lv.Inj), Mask(lv.Above), Mask(lv.Below)
	for i, pe := range lv.Parents {
		r[l.PPos+i], r[l.PELAny+i], r[l.PEL+i] = uint32(pe.Pos), B2U(pe.Label.Any), pe.Label.Value
	}
}

// Put appends s to *b at the next 8-byte boundary and returns where it starts: the sections of
// one upload.
func Put[T uint32 | uint64](b *[]byte, s []T) uint64 {
	for len(*b)%8 != 0 {
		*b = append(*b, 0)
	}
	at := uint64(len(*b))
	if len(s) > 0 {
		var z T
		*b = append(*b, unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))...)
	}
	return at
}

// Ensure makes *b hold at least bytes (and at least 256), reallocating it from mem when smaller:
// to exactly that, or with grow to the next power of two.
func Ensure(mem *gpu.Allocs, b **gpu.Buffer, what string, bytes uint64, grow bool) error {
	bytes = max(bytes, 256)
	if *b != nil && (*b).Size() >= bytes {
		return nil
	}
	if *b != nil {
		mem.Release(*b)
		*b = nil
	}
	if grow {
		bytes = 1 << bits.Len64(bytes-1)
	}
	nb, err := mem.Alloc(what, bytes)
	if err != nil {
		return err
	}
	*b = nb
	return nil
}
