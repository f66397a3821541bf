package gpu

import (
	"errors"
	"time"
	"unsafe"
)

// ErrNoEvents is returned by NewEvent when the driver has no event API (an old or partial
// libcuda): callers time with the host clock instead, or not at all.
var ErrNoEvents = errors.New("gpu: the CUDA driver has no events")

// An Event is a CUDA event: a mark in the device's work queue (the default stream by Record, a
// Stream by RecordOn), recorded after the work launched there before it. Two recorded events give the device time between them
// without waiting for that work when it is launched: a caller that overlaps host work with
// the device's (dcsm's waves) learns how long the device was busy.
type Event struct {
	dev *Device
	h   uintptr
}

func haveEvents() bool {
	return drv.cuEventCreate != 0 && drv.cuEventRecord != 0 && drv.cuEventElapsedTime != 0 &&
		drv.cuEventDestroy != 0 && drv.cuEventSynchronize != 0
}

// NewEvent creates an event on the device (ErrNoEvents without the driver's event API).
func (d *Device) NewEvent() (*Event, error) {
	if !haveEvents() {
		return nil, ErrNoEvents
	}
	e := &Event{dev: d}
	err := d.Do(func() error {
		return drv.check("cuEventCreate", ccall(drv.cuEventCreate, uintptr(unsafe.Pointer(&e.h)), 0))
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Record marks the point after the work launched so far.
func (e *Event) Record() error {
	return e.dev.Do(func() error { return drv.check("cuEventRecord", ccall(drv.cuEventRecord, e.h, 0)) })
}

// Since waits until the device reaches e and returns the device time from start to e (both
// recorded; start first).
func (e *Event) Since(start *Event) (time.Duration, error) {
	var ms float32
	err := e.dev.Do(func() error {
		if err := drv.check("cuEventSynchronize", ccall(drv.cuEventSynchronize, e.h)); err != nil {
			return err
		}
		return drv.check("cuEventElapsedTime", ccall(drv.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, e.h))
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// Done reports, without waiting, whether the device has reached e (recorded): the work launched
// before it is finished. Without the driver's cuEventQuery it returns ErrNoEvents.
func (e *Event) Done() (bool, error) {
	if drv.cuEventQuery == 0 {
		return false, ErrNoEvents
	}
	var done bool
	err := e.dev.Do(func() error {
		r := ccall(drv.cuEventQuery, e.h)
		if r == cudaErrorNotReady {
			return nil
		}
		done = true
		return drv.check("cuEventQuery", r)
	})
	return done && err == nil, err
}

// Close destroys the event (a nil event or a second Close does nothing).
func (e *Event) Close() {
	if e == nil || e.h == 0 {
		return
	}
	_ = e.dev.Do(func() error { ccall(drv.cuEventDestroy, e.h); return nil })
	e.h = 0
}
