package gpu

import (
	"fmt"
	"unsafe"
)

// Placement says where a buffer that kernels only read lives: in device memory (within the
// budget), or in host memory that the kernels address over the bus, so that data larger than the
// device's memory (or than --gpu-memory) can still be read by an unchanged kernel.
type Placement int

const (
	// OnDevice is device memory, counted against the Allocs' limit and the device's budget.
	OnDevice Placement = iota
	// OnHost is pinned host memory mapped into the device's address space (AllocHost): every
	// read a kernel makes goes over the bus (zero-copy).
	OnHost
	// OnManaged is managed (unified) memory (AllocManaged): the driver migrates the pages a
	// kernel touches to the device, and evicts them when the device is full.
	OnManaged
)

var placementNames = [...]string{"device", "host", "managed"}

// String returns the placement's name: device, host or managed.
func (p Placement) String() string {
	if p < 0 || int(p) >= len(placementNames) {
		return fmt.Sprintf("Placement(%d)", int(p))
	}
	return placementNames[p]
}

// ParsePlacement reads device, host or managed ("" is device).
func ParsePlacement(s string) (Placement, error) {
	if s == "" {
		return OnDevice, nil
	}
	for k, n := range placementNames {
		if s == n {
			return Placement(k), nil
		}
	}
	return 0, fmt.Errorf("must be device, host or managed, not %q", s)
}

// PlacedBytes is the bytes UploadPlaced takes for an upload of bytes: at least 8, so that an
// empty upload still has a valid address. Callers that choose a placement by what is Available
// weigh each buffer at this size (an empty one counted as 0 would not fit a full limit).
func PlacedBytes(bytes uint64) uint64 { return max(bytes, 8) }

// UploadPlaced makes one buffer holding parts one after the other, placed as place says, and
// returns its device address. On the device it is allocated as a.Alloc does (within the limit);
// in host or managed memory it does not count against the limit, a remembers it (HostUsed) and
// FreeAll frees it. Either way the buffer is PlacedBytes of the parts' bytes.
func UploadPlaced[T Elem](a *Allocs, place Placement, what string, parts ...[]T) (DevicePtr, error) {
	var n uint64
	for _, p := range parts {
		n += byteLen(p)
	}
	if place == OnDevice {
		b, err := a.Alloc(what, PlacedBytes(n))
		if err != nil {
			return 0, err
		}
		var at uint64
		for _, p := range parts {
			if len(p) == 0 {
				continue
			}
			if err := CopyToDevice(b, at, p); err != nil {
				return 0, fmt.Errorf("%s%s: %w", a.Prefix, what, err)
			}
			at += byteLen(p)
		}
		return b.Ptr(), nil
	}
	alloc, kind := a.Device.AllocHost, "mapped host memory"
	if place == OnManaged {
		alloc, kind = a.Device.AllocManaged, "managed memory"
	}
	hb, err := alloc(PlacedBytes(n))
	if err != nil {
		return 0, fmt.Errorf("%s%s: %s (%s): %w", a.Prefix, what, kind, FormatBytes(n), err)
	}
	dst := hb.Bytes()
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		dst = dst[copy(dst, unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), byteLen(p))):]
	}
	a.hosts = append(a.hosts, hb)
	a.hostUsed += hb.Size()
	return hb.Ptr(), nil
}

// HostUsed returns the bytes of host and managed memory a holds (UploadPlaced).
func (a *Allocs) HostUsed() uint64 { return a.hostUsed }
