// Package gpu owns access to NVIDIA GPUs without cgo: the CUDA driver API and NVRTC are loaded at
// run time through purego, each device is driven by one locked worker goroutine (which owns the
// device's primary context for the life of the process), kernels are compiled by NVRTC for the
// device's architecture and cached on disk, and device memory is handed out through a Budget.
// An Allocs holds one count's buffers on a device within that count's own limit (--gpu-memory).
//
// The package never needs CUDA at build time: a binary built with CGO_ENABLED=0 (or =1) runs on a
// machine without a GPU, where Open returns an error wrapping ErrNoGPU that says why (each library
// path tried and its dlopen error, or the CUDA error of cuInit).
//
// Threading: every call that needs a CUDA context runs on the device's worker goroutine, through
// Device.Do. The helpers of this package (Alloc, Upload, CopyToHost, Launch, Synchronize...) call Do
// themselves and may also be called from inside a Do closure (they then run directly).
// Device.DoHere runs a closure on the caller's own thread with the context made current there
// (the helpers inside it run on that thread): no thread switch, for short calls at a high rate.
//
// Streams: Launch, CopyToDeviceAsync and the synchronous copies use the legacy default stream,
// so a copy and a kernel never run at the same time. A Stream (Device.NewStream, non-blocking)
// is a queue of its own: CopyToDeviceOn (from pinned memory, AllocHost) and Function.LaunchOn
// queue on it, and events order streams against each other (Event.RecordOn, Stream.WaitEvent)
// and the host against them (Event.Wait, Stream.Synchronize), so that an upload on one stream
// runs while a kernel on another computes. A Stream does not synchronize with the default stream:
// work on it is ordered against the default stream's only by events or host waits. Stream calls
// follow the threading above (Do, or directly inside Do and DoHere). Streams are optional: a
// driver without them makes NewStream return ErrNoStreams.
//
// Kernels are CUDA C++ sources that the engines embed and register (RegisterKernel, KernelSource).
package gpu
