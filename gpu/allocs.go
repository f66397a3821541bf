package gpu

import "fmt"

// Allocs is the device memory one piece of work (an engine's count) holds on Device, within its
// own Limit (the count's --gpu-memory; 0: none) as well as the device's Budget. It remembers its
// buffers so that FreeAll releases them at the end. It is not safe for concurrent use (one per
// device and goroutine).
type Allocs struct {
	Device *Device
	Limit  uint64
	Prefix string // starts every error, e.g. "stmatch: "

	used uint64
	bufs []*Buffer
	// hosts are the buffers UploadPlaced made in host or managed memory, hostUsed their bytes.
	hosts    []*HostBuffer
	hostUsed uint64
}

// Alloc allocates bytes of device memory within the limit. Its errors start with Prefix and
// what (the buffer's name; may be empty). Beyond the limit it returns, without calling CUDA, an
// error wrapping ErrBudget that says what was wanted, what is left and the limit; the device's
// own refusals (Device.Alloc) come back wrapped the same way.
func (a *Allocs) Alloc(what string, bytes uint64) (*Buffer, error) {
	return a.add(what, bytes, func() (*Buffer, error) { return a.Device.Alloc(bytes) })
}

// UploadTo allocates, as a.Alloc, a buffer holding a copy of words (see Upload).
func UploadTo[T Elem](a *Allocs, what string, words []T) (*Buffer, error) {
	return a.add(what, byteLen(words), func() (*Buffer, error) { return Upload(a.Device, words) })
}

// add checks bytes against the limit, makes the buffer with f and keeps it.
func (a *Allocs) add(what string, bytes uint64, f func() (*Buffer, error)) (*Buffer, error) {
	prefix := a.Prefix
	if what != "" {
		prefix += what + ": "
	}
	if left := a.Limit - min(a.Limit, a.used); a.Limit > 0 && bytes > left {
		return nil, fmt.Errorf("%s%s wanted, %s of --gpu-memory %s left: %w", prefix, FormatBytes(bytes),
			FormatBytes(left), FormatBytes(a.Limit), ErrBudget)
	}
	b, err := f()
	if err != nil {
		if prefix == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%s%w", prefix, err)
	}
	a.bufs = append(a.bufs, b)
	a.used += b.Size()
	return b, nil
}

// Release frees b, one of a's buffers, and gives its bytes back to the limit. Buffers that are
// not a's are left alone.
func (a *Allocs) Release(b *Buffer) {
	for i := len(a.bufs) - 1; i >= 0; i-- {
		if a.bufs[i] == b {
			a.bufs = append(a.bufs[:i], a.bufs[i+1:]...)
			a.used -= b.Size()
			b.Free()
			return
		}
	}
}

// FreeAll frees every buffer a still holds, on the device and (UploadPlaced) on the host.
func (a *Allocs) FreeAll() {
	for _, b := range a.bufs {
		a.used -= b.Size()
		b.Free()
	}
	a.bufs = nil
	for _, h := range a.hosts {
		h.Free()
	}
	a.hosts, a.hostUsed = nil, 0
}

// Used returns the bytes a holds.
func (a *Allocs) Used() uint64 { return a.used }

// Available returns the bytes a may still allocate: the least of what the device's Budget and
// the limit have left.
func (a *Allocs) Available() uint64 {
	avail := a.Device.Budget().Available()
	if a.Limit > 0 {
		avail = min(avail, a.Limit-min(a.Limit, a.used))
	}
	return avail
}
