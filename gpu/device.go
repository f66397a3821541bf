package gpu

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Info describes one device.
type Info struct {
	Ordinal                int    `json:"ordinal"`
	Name                   string `json:"name"`
	ComputeMajor           int    `json:"compute_major"`
	ComputeMinor           int    `json:"compute_minor"`
	Arch                   string `json:"arch"` // NVRTC target, e.g. "sm_90"
	SMs                    int    `json:"sms"`
	MaxThreadsPerBlock     int    `json:"max_threads_per_block"`
	MaxThreadsPerSM        int    `json:"max_threads_per_sm"`
	WarpSize               int    `json:"warp_size"`
	SharedMemPerBlock      int    `json:"shared_mem_per_block"`
	SharedMemPerBlockOptin int    `json:"shared_mem_per_block_optin"`
	L2CacheBytes           int    `json:"l2_cache_bytes"`
	// KernelTimeout is set when the driver kills kernels that run longer than a few seconds
	// (a GPU that drives a display).
	KernelTimeout bool   `json:"kernel_timeout,omitempty"`
	PCIBusID      string `json:"pci_bus_id"`
	TotalMem      uint64 `json:"total_mem"`
	FreeMem       uint64 `json:"free_mem"` // when the device was opened
	BudgetLimit   uint64 `json:"budget_limit"`
	DriverVersion int    `json:"driver_version"` // CUDA version the driver supports, e.g. 13000
	NVRTCVersion  string `json:"nvrtc_version,omitempty"`
}

// CUDAVersionString formats a driver version number (13000 -> "13.0").
func CUDAVersionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// Device is one GPU, driven by a worker goroutine locked to its OS thread, on which the device's
// primary context is current for the life of the process. Its methods are safe for concurrent use.
type Device struct {
	info   Info
	cu     int32   // CUdevice
	ctx    uintptr // CUcontext (primary)
	jobs   chan job
	tid    int
	budget *Budget
	// contextTime is how long setup took to retain the primary context and make it current.
	contextTime time.Duration
	// here holds the threads running a DoHere now (their ids), nhere how many: Do runs inline
	// on them as on the worker.
	here  threadSet
	nhere atomic.Int32

	modMu   sync.Mutex
	modules map[string]*Module
	// compiles are the NVRTC runs under way, by cache key; nvrtcRuns counts the runs started.
	compiles  flights[*Module]
	nvrtcRuns atomic.Int64

	// defaultLimit is the budget DefaultLimit gave at open; localExtra the most local memory
	// beyond the context's own that a kernel looked up so far makes the driver reserve
	// (accountLocal).
	localMu      sync.Mutex
	defaultLimit uint64
	localExtra   uint64
}

type job struct {
	fn   func() error
	done chan error
}

var (
	openMu      sync.Mutex
	openDone    bool
	openDevices []*Device
	openErr     error
	deviceErrs  []string

	timesMu   sync.Mutex // guards openTimes apart from openMu, which an Open in progress holds
	openTimes *StartTimes
)

// StartTimes is where the first Open of the process spent its time (CUDA's start): the phases
// run one after the other, except NVRTC, which loads while the devices start.
type StartTimes struct {
	Began    time.Time     // when the first Open began
	Discover time.Duration // finding and loading the driver library (dlopen)
	Init     time.Duration // cuInit, the version and the device count
	Devices  time.Duration // starting every device (at the same time): attributes and primary context
	Context  time.Duration // the slowest device's primary context (cuDevicePrimaryCtxRetain, made current)
	NVRTC    time.Duration // finding and loading NVRTC (dlopen), during Devices
	Total    time.Duration // the whole first Open
}

// OpenTimes returns the phases of the process's first Open; ok is false until one has finished
// (it does not wait for an Open in progress).
func OpenTimes() (t StartTimes, ok bool) {
	timesMu.Lock()
	defer timesMu.Unlock()
	if openTimes == nil {
		return StartTimes{}, false
	}
	return *openTimes, true
}

// Open discovers the GPUs and starts one worker per device (once per process; later calls return
// the same devices). Without a usable GPU it returns an error wrapping ErrNoGPU that says why; it
// never panics. ctx is checked before discovery starts.
func Open(ctx context.Context) ([]*Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	openMu.Lock()
	defer openMu.Unlock()
	if !openDone {
		t := StartTimes{Began: time.Now()}
		openDevices, openErr = open(&t)
		t.Total = time.Since(t.Began)
		openDone = true
		noteOpened(openDevices)
		timesMu.Lock()
		openTimes = &t
		timesMu.Unlock()
	}
	return openDevices, openErr
}

// OpenFirst opens the GPUs (Open) and returns the first of gpus, the indices a problem lists
// (--gpus), or device 0 when it lists none: what the engines that run on one GPU take. Its errors
// are Open's, one wrapping ErrNoGPU when no device started, and "GPU k asked for, n available".
func OpenFirst(ctx context.Context, gpus []int) (*Device, error) {
	devs, err := Open(ctx)
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, ErrNoGPU
	}
	if len(gpus) == 0 {
		return devs[0], nil
	}
	if k := gpus[0]; k < 0 || k >= len(devs) {
		return nil, fmt.Errorf("GPU %d asked for, %d available", k, len(devs))
	}
	return devs[gpus[0]], nil
}

// DeviceErrors lists the devices that Open found but could not start (each with its error).
func DeviceErrors() []string {
	openMu.Lock()
	defer openMu.Unlock()
	return append([]string(nil), deviceErrs...)
}

// open starts the devices, recording its phases in t.
func open(t *StartTimes) (devs []*Device, err error) {
	defer func() {
		if r := recover(); r != nil {
			devs, err = nil, fmt.Errorf("%w: panic while opening the driver: %v", ErrNoGPU, r)
		}
	}()
	phase := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d, phase = now.Sub(phase), now
	}
	rep := discoverDriver() // NVRTC is looked for once a device is known to exist (NVRTCVersion below)
	lap(&t.Discover)
	if !drv.ok {
		return nil, fmt.Errorf("%w: %v", ErrNoGPU, errNoDriver(rep.Driver))
	}
	if err := drv.check("cuInit", ccall(drv.cuInit, 0)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	var ver, count int32
	if err := drv.check("cuDriverGetVersion", ccall(drv.cuDriverGetVersion, uintptr(unsafe.Pointer(&ver)))); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	if err := drv.check("cuDeviceGetCount", ccall(drv.cuDeviceGetCount, uintptr(unsafe.Pointer(&count)))); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoGPU, err)
	}
	if count == 0 {
		return nil, fmt.Errorf("%w: the driver (CUDA %s) reports no devices", ErrNoGPU, CUDAVersionString(int(ver)))
	}
	lap(&t.Init)
	// NVRTC (a large library: tens of milliseconds to load) loads while the devices start, and
	// the contexts are created at the same time: each takes a few hundred milliseconds.
	var nvrtcVer string
	nvrtcDone := make(chan struct{})
	go func() {
		defer close(nvrtcDone)
		t0 := time.Now()
		nvrtcVer, _ = NVRTCVersion()
		t.NVRTC = time.Since(t0)
	}()
	started := make([]*Device, count)
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := range int(count) {
		wg.Go(func() { started[i], errs[i] = startDevice(i, int(ver)) })
	}
	wg.Wait()
	lap(&t.Devices)
	<-nvrtcDone
	for i, d := range started {
		if errs[i] != nil {
			deviceErrs = append(deviceErrs, fmt.Sprintf("device %d: %v", i, errs[i]))
			continue
		}
		d.info.NVRTCVersion = nvrtcVer
		t.Context = max(t.Context, d.contextTime)
		devs = append(devs, d)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: no device could be started: %s", ErrNoGPU, strings.Join(deviceErrs, "; "))
	}
	return devs, nil
}

func startDevice(ordinal, driverVersion int) (*Device, error) {
	d := &Device{jobs: make(chan job), modules: map[string]*Module{}}
	d.info.Ordinal = ordinal
	d.info.DriverVersion = driverVersion
	ready := make(chan error, 1)
	go d.worker(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return d, nil
}

// worker owns the device's context on its locked OS thread and runs submitted closures forever.
func (d *Device) worker(ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread keeps the context for the process's life
	d.tid = threadID()
	if err := d.setup(); err != nil {
		ready <- err
		return // the thread stays locked and is discarded with the goroutine
	}
	ready <- nil
	for j := range d.jobs {
		j.done <- runSafely(j.fn)
	}
}

func runSafely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gpu: panic in device closure: %v", r)
		}
	}()
	return fn()
}

// setup runs on the worker thread.
func (d *Device) setup() error {
	if err := drv.check("cuDeviceGet", ccall(drv.cuDeviceGet, uintptr(unsafe.Pointer(&d.cu)), uintptr(d.info.Ordinal))); err != nil {
		return err
	}
	var name [256]byte
	if err := drv.check("cuDeviceGetName", ccall(drv.cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)), uintptr(d.cu))); err != nil {
		return err
	}
	d.info.Name = cString(&name[0])
	var total uintptr
	if err := drv.check("cuDeviceTotalMem_v2", ccall(drv.cuDeviceTotalMem, uintptr(unsafe.Pointer(&total)), uintptr(d.cu))); err != nil {
		return err
	}
	d.info.TotalMem = uint64(total)
	attrs := []struct {
		attr int
		dst  *int
	}{
		{attrComputeCapabilityMajor, &d.info.ComputeMajor},
		{attrComputeCapabilityMinor, &d.info.ComputeMinor},
		{attrMultiprocessorCount, &d.info.SMs},
		{attrMaxThreadsPerBlock, &d.info.MaxThreadsPerBlock},
		{attrMaxThreadsPerSM, &d.info.MaxThreadsPerSM},
		{attrWarpSize, &d.info.WarpSize},
		{attrMaxSharedMemPerBlock, &d.info.SharedMemPerBlock},
		{attrMaxSharedMemPerBlockOptin, &d.info.SharedMemPerBlockOptin},
		{attrL2CacheSize, &d.info.L2CacheBytes},
	}
	for _, a := range attrs {
		v, err := drv.attribute(d.cu, a.attr)
		if err != nil {
			return err
		}
		*a.dst = v
	}
	dom, err1 := drv.attribute(d.cu, attrPCIDomainID)
	bus, err2 := drv.attribute(d.cu, attrPCIBusID)
	dev, err3 := drv.attribute(d.cu, attrPCIDeviceID)
	if err1 == nil && err2 == nil && err3 == nil {
		d.info.PCIBusID = fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, dev)
	}
	d.info.Arch = fmt.Sprintf("sm_%d%d", d.info.ComputeMajor, d.info.ComputeMinor)
	if v, err := drv.attribute(d.cu, attrKernelExecTimeout); err == nil {
		d.info.KernelTimeout = v != 0
	}

	tc := time.Now()
	defer func() { d.contextTime = time.Since(tc) }()
	if err := drv.check("cuDevicePrimaryCtxRetain", ccall(drv.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), uintptr(d.cu))); err != nil {
		return err
	}
	if err := drv.check("cuCtxSetCurrent", ccall(drv.cuCtxSetCurrent, d.ctx)); err != nil {
		ccall(drv.cuDevicePrimaryCtxRelease, uintptr(d.cu))
		return err
	}
	free, _, err := d.memInfo()
	if err != nil {
		ccall(drv.cuDevicePrimaryCtxRelease, uintptr(d.cu))
		return err
	}
	d.info.FreeMem = free
	d.defaultLimit = DefaultLimit(free, d.info.TotalMem)
	d.budget = &Budget{device: d.info.Ordinal, limit: d.defaultLimit}
	d.info.BudgetLimit = d.budget.limit
	return nil
}

// contextStackBytes is the local memory a thread has from the context's creation on: CUDA's
// default stack limit (CU_LIMIT_STACK_SIZE, 1 KiB), which the context reserves for every thread
// the device can hold at once, so it is already out of the free memory measured at open.
const contextStackBytes = 1024

// localGranule rounds a thread's local memory up the way the driver's reservation is assumed to
// (conservatively: the driver's own granularity is not documented).
const localGranule = 256

// LocalReserve is the device memory the driver takes, at a kernel's first launch, for perThread
// bytes of local memory in every thread the device can hold at once, beyond what the context
// already holds (contextStackBytes a thread).
func LocalReserve(perThread, sms, threadsPerSM int) uint64 {
	per := (perThread + localGranule - 1) / localGranule * localGranule
	if per <= contextStackBytes {
		return 0
	}
	return uint64(per-contextStackBytes) * uint64(sms) * uint64(threadsPerSM)
}

// accountLocal lowers the budget's default by the local memory a kernel of perThread bytes a
// thread makes the driver reserve at its launch, outside any allocation of ours: without it, the
// budget could hand out memory that the launch then needs (CUDA_ERROR_OUT_OF_MEMORY at
// cuLaunchKernel on a GPU that other processes fill). A --gpu-memory below the result is left as
// it is: the reservation comes out of the GPU's free memory, not out of the engines' share.
func (d *Device) accountLocal(perThread int) {
	extra := LocalReserve(perThread, d.info.SMs, d.info.MaxThreadsPerSM)
	d.localMu.Lock()
	defer d.localMu.Unlock()
	if extra <= d.localExtra || d.budget == nil {
		return
	}
	d.localExtra = extra
	d.budget.Lower(d.defaultLimit - min(d.defaultLimit, extra))
}

func (d *Device) memInfo() (free, total uint64, err error) {
	var f, t uintptr
	if err := drv.check("cuMemGetInfo_v2", ccall(drv.cuMemGetInfo, uintptr(unsafe.Pointer(&f)), uintptr(unsafe.Pointer(&t)))); err != nil {
		return 0, 0, err
	}
	return uint64(f), uint64(t), nil
}

// Do runs fn on the device's worker thread, where the device's context is current, and returns
// fn's error. A panic in fn is returned as an error. Called from inside a Do closure of the same
// device, it runs fn directly.
func (d *Device) Do(fn func() error) error {
	if d.onWorker() {
		return runSafely(fn)
	}
	done := make(chan error, 1)
	d.jobs <- job{fn: fn, done: done}
	return <-done
}

func (d *Device) onWorker() bool {
	if d.tid <= 0 {
		return false
	}
	t := threadID()
	if t == d.tid {
		return true
	}
	if d.nhere.Load() == 0 {
		return false
	}
	return d.here.has(t)
}

// threadSet is a small set of OS thread ids. It is a slice under a mutex rather than a
// sync.Map because DoHere adds and removes its thread once per call (per wave of a stream at a
// low rate): the slice keeps its capacity, so a call allocates nothing once the set has held
// as many threads as it ever will.
type threadSet struct {
	mu  sync.Mutex
	ids []int
}

func (s *threadSet) add(t int) {
	s.mu.Lock()
	s.ids = append(s.ids, t)
	s.mu.Unlock()
}

// remove removes one occurrence of t (a thread may run a DoHere inside a DoHere of another
// device, so the same id can be in two devices' sets, never twice in one).
func (s *threadSet) remove(t int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, id := range s.ids {
		if id == t {
			last := len(s.ids) - 1
			s.ids[i] = s.ids[last]
			s.ids = s.ids[:last]
			return
		}
	}
}

func (s *threadSet) has(t int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.ids {
		if id == t {
			return true
		}
	}
	return false
}

// DoHere runs fn on the calling goroutine's OS thread, with the device's context made current
// there, and returns fn's error; the device's calls inside fn (Do, and every method that uses
// it) run on that thread too, not on the worker. A Do costs two thread switches (to the worker
// and back), tens of microseconds each on an idle host: a caller that makes a few short calls
// in a row many times a second (dcsm's waves at a low rate of updates: an upload, two
// launches, two events, a copy back) makes them all in one DoHere instead. The CUDA driver
// API is thread-safe and the context is the one the worker uses, so fn's calls and the
// worker's (other goroutines' Do) may run at the same time, ordered on the device's default
// stream as they are issued. A panic in fn is returned as an error. Called from inside a Do or
// a DoHere of the same device, it runs fn directly. Nested inside another device's DoHere, it
// makes its own context current for fn and the outer one current again when fn returns (the
// thread's context on return is the one it had on entry: none, for a goroutine's thread); fn
// must then call only its own device, whose context is the current one.
func (d *Device) DoHere(fn func() error) error {
	if d.onWorker() {
		return runSafely(fn)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var outer uintptr
	if err := drv.check("cuCtxGetCurrent", ccall(drv.cuCtxGetCurrent, uintptr(unsafe.Pointer(&outer)))); err != nil {
		return err
	}
	if err := drv.check("cuCtxSetCurrent", ccall(drv.cuCtxSetCurrent, d.ctx)); err != nil {
		return err
	}
	t := threadID()
	d.here.add(t)
	d.nhere.Add(1)
	defer func() {
		d.nhere.Add(-1)
		d.here.remove(t)
		ccall(drv.cuCtxSetCurrent, outer)
	}()
	return runSafely(fn)
}

// Info returns the device's description (FreeMem as of Open; BudgetLimit as of now).
func (d *Device) Info() Info {
	i := d.info
	i.BudgetLimit = d.budget.Limit()
	return i
}

// Ordinal returns the device's CUDA ordinal.
func (d *Device) Ordinal() int { return d.info.Ordinal }

// Arch returns the NVRTC target of the device, e.g. "sm_90".
func (d *Device) Arch() string { return d.info.Arch }

// String names the device, e.g. "gpu 0 (NVIDIA H100 80GB HBM3, sm_90)".
func (d *Device) String() string {
	return fmt.Sprintf("gpu %d (%s, %s)", d.info.Ordinal, d.info.Name, d.info.Arch)
}

// Budget returns the device's memory budget (shared by every allocation on the device).
func (d *Device) Budget() *Budget { return d.budget }

// SetMemoryLimit lowers the device's budget to bytes (never raises it above the default) and
// returns the limit in force.
func (d *Device) SetMemoryLimit(bytes uint64) uint64 { return d.budget.Lower(bytes) }

// MemInfo returns the device's free and total memory now.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = d.Do(func() error {
		var e error
		free, total, e = d.memInfo()
		return e
	})
	return
}

// Synchronize waits for all work on the device to finish (cuCtxSynchronize) and returns the first
// asynchronous error, if any.
func (d *Device) Synchronize() error {
	return d.Do(func() error { return drv.check("cuCtxSynchronize", ccall(drv.cuCtxSynchronize)) })
}

var errFreed = errors.New("gpu: buffer already freed")
