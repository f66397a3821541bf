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
// Kernels are CUDA C++ sources that the engines embed and register (RegisterKernel, KernelSource).
package gpu
