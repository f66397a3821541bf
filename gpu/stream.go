package gpu

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrNoStreams is returned by NewStream when the driver lacks the stream API (cuStreamCreate,
// cuStreamSynchronize, cuStreamDestroy, cuStreamWaitEvent, cuEventRecord) or asynchronous
// copies (cuMemcpyHtoDAsync): callers keep everything on the default stream instead.
var ErrNoStreams = errors.New("gpu: the CUDA driver has no streams")

// streamNonBlocking is CU_STREAM_NON_BLOCKING: the stream does not synchronize with the legacy
// default stream (work queued there by Launch, CopyToDeviceAsync, the synchronous copies).
const streamNonBlocking = 0x1

// A Stream is a CUDA stream of its own (cuStreamCreate with CU_STREAM_NON_BLOCKING): the copies
// and kernels queued on it run in their order, and at the same time as those of other streams,
// the default one included. Nothing orders a Stream's work against another stream's but events
// (Event.RecordOn, Stream.WaitEvent) and the host's waits (Stream.Synchronize, Event.Wait,
// Device.Synchronize, which waits for every stream). In particular the synchronous copies
// (CopyToDevice, CopyToHost) and Device's helpers, which use the default stream, do not wait for
// a Stream's work: wait for it first.
//
// Its methods follow the package's threading: they run on the device's worker thread through
// Device.Do (directly inside a Do or DoHere closure of the device).
type Stream struct {
	dev *Device
	h   uintptr // CUstream
}

func haveStreams() bool {
	return drv.cuStreamCreate != 0 && drv.cuStreamSynchronize != 0 && drv.cuStreamDestroy != 0 &&
		drv.cuStreamWaitEvent != 0 && drv.cuEventRecord != 0 && drv.cuMemcpyHtoDAsync != 0
}

// NewStream creates a non-blocking stream on the device (ErrNoStreams without the driver's
// stream API).
func (d *Device) NewStream() (*Stream, error) {
	if !haveStreams() {
		return nil, ErrNoStreams
	}
	s := &Stream{dev: d}
	err := d.Do(func() error {
		return drv.check("cuStreamCreate", ccall(drv.cuStreamCreate, uintptr(unsafe.Pointer(&s.h)), streamNonBlocking))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Device returns the device the stream belongs to.
func (s *Stream) Device() *Device { return s.dev }

// Synchronize waits until the device has run everything queued on the stream, and returns the
// first error of that work.
func (s *Stream) Synchronize() error {
	return s.dev.Do(func() error { return drv.check("cuStreamSynchronize", ccall(drv.cuStreamSynchronize, s.h)) })
}

// WaitEvent makes the work queued on the stream from now on wait until the device reaches e
// (recorded, on any stream of the device): the host does not wait.
func (s *Stream) WaitEvent(e *Event) error {
	if e.dev != s.dev {
		return fmt.Errorf("gpu: a stream of %v waits for an event of %v", s.dev, e.dev)
	}
	return s.dev.Do(func() error {
		return drv.check("cuStreamWaitEvent", ccall(drv.cuStreamWaitEvent, s.h, e.h, 0))
	})
}

// Close waits for the stream's work and destroys it (a nil stream or a second Close does nothing).
func (s *Stream) Close() error {
	if s == nil || s.h == 0 {
		return nil
	}
	err := s.dev.Do(func() error {
		err := drv.check("cuStreamSynchronize", ccall(drv.cuStreamSynchronize, s.h))
		if e := drv.check("cuStreamDestroy_v2", ccall(drv.cuStreamDestroy, s.h)); err == nil {
			err = e
		}
		return err
	})
	s.h = 0
	return err
}

// handle is the stream's CUstream, 0 (the legacy default stream) for a nil stream.
func (s *Stream) handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
}

// RecordOn marks the point after the work queued on s so far (s nil: the default stream, as
// Record). Another stream's WaitEvent, or the host's Wait, then waits for that work.
func (e *Event) RecordOn(s *Stream) error {
	if s != nil && s.dev != e.dev {
		return fmt.Errorf("gpu: an event of %v recorded on a stream of %v", e.dev, s.dev)
	}
	return e.dev.Do(func() error { return drv.check("cuEventRecord", ccall(drv.cuEventRecord, e.h, s.handle())) })
}

// Wait blocks the host until the device reaches e (recorded): the work before it on its stream
// is done. An event never recorded is reached at once.
func (e *Event) Wait() error {
	return e.dev.Do(func() error { return drv.check("cuEventSynchronize", ccall(drv.cuEventSynchronize, e.h)) })
}

// CopyToDeviceOn queues on s a copy of n bytes of the pinned buffer src, from byte srcOff, into
// dst at byte offset, and returns without waiting for it (s nil: the default stream, as
// CopyToDeviceAsync). The host must not write those bytes of src until the copy has run: until
// s's Synchronize, or an event recorded on s after the copy has been reached.
func CopyToDeviceOn(s *Stream, dst *Buffer, offset uint64, src *HostBuffer, srcOff, n uint64) error {
	if s == nil {
		return CopyToDeviceAsync(dst, offset, src, srcOff, n)
	}
	if s.dev != dst.dev {
		return fmt.Errorf("gpu: a copy queued on a stream of %v into a buffer of %v", s.dev, dst.dev)
	}
	from, err := src.span(srcOff, n)
	if err != nil {
		return err
	}
	return dst.transfer("copy to device", offset, n, func() error {
		return drv.check("cuMemcpyHtoDAsync_v2", ccall(drv.cuMemcpyHtoDAsync, uintptr(dst.ptr+offset), from, uintptr(n), s.h))
	})
}

// LaunchOn starts the kernel on s (s nil: the default stream, as Launch), after the work queued
// on s before it; arguments as Launch's. It does not wait for the kernel.
func (f *Function) LaunchOn(s *Stream, grid, block Dim3, sharedMem uint32, args ...any) error {
	if s != nil && s.dev != f.mod.dev {
		return fmt.Errorf("gpu: kernel %s of %v launched on a stream of %v", f.Name, f.mod.dev, s.dev)
	}
	vals, err := kernelArgs(args)
	if err != nil {
		return err
	}
	grid, block = grid.norm(), block.norm()
	return f.mod.dev.Do(func() error {
		return f.launch(s.handle(), grid, block, sharedMem, vals)
	})
}
