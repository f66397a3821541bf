package gpu

import (
	"unsafe"
)

// driverLib holds the CUDA driver API entry points (versioned _v2 symbols where the ABI changed).
type driverLib struct {
	ok bool

	cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString                           uintptr
	cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute, cuDeviceTotalMem uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent, cuCtxSynchronize uintptr
	cuCtxGetCurrent                                                                        uintptr
	cuMemGetInfo, cuMemAlloc, cuMemFree, cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD          uintptr
	cuMemsetD8, cuMemsetD32                                                                uintptr
	cuModuleLoadData, cuModuleGetFunction, cuModuleUnload                                  uintptr
	cuFuncSetAttribute, cuFuncGetAttribute, cuLaunchKernel                                 uintptr
	cuOccupancyMaxActiveBlocksPerMultiprocessor                                            uintptr
	cuStreamCreate, cuStreamSynchronize, cuStreamDestroy                                   uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy   uintptr
	cuMemHostAlloc, cuMemHostGetDevicePointer, cuMemFreeHost                               uintptr
	cuMemAllocManaged                                                                      uintptr
	cuMemcpyHtoDAsync                                                                      uintptr
	cuEventQuery                                                                           uintptr
	cuStreamWaitEvent                                                                      uintptr
}

func (l *driverLib) table() []symbol {
	req := func(dst *uintptr, names ...string) symbol { return symbol{names: names, dst: dst} }
	opt := func(dst *uintptr, names ...string) symbol { return symbol{names: names, dst: dst, optional: true} }
	return []symbol{
		req(&l.cuInit, "cuInit"),
		req(&l.cuDriverGetVersion, "cuDriverGetVersion"),
		req(&l.cuGetErrorName, "cuGetErrorName"),
		req(&l.cuGetErrorString, "cuGetErrorString"),
		req(&l.cuDeviceGetCount, "cuDeviceGetCount"),
		req(&l.cuDeviceGet, "cuDeviceGet"),
		req(&l.cuDeviceGetName, "cuDeviceGetName"),
		req(&l.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
		req(&l.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
		req(&l.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		req(&l.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
		req(&l.cuCtxSetCurrent, "cuCtxSetCurrent"),
		req(&l.cuCtxSynchronize, "cuCtxSynchronize"),
		req(&l.cuCtxGetCurrent, "cuCtxGetCurrent"),
		req(&l.cuMemGetInfo, "cuMemGetInfo_v2"),
		req(&l.cuMemAlloc, "cuMemAlloc_v2"),
		req(&l.cuMemFree, "cuMemFree_v2"),
		req(&l.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
		req(&l.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
		req(&l.cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
		req(&l.cuMemsetD8, "cuMemsetD8_v2"),
		req(&l.cuMemsetD32, "cuMemsetD32_v2"),
		req(&l.cuModuleLoadData, "cuModuleLoadData"),
		req(&l.cuModuleGetFunction, "cuModuleGetFunction"),
		req(&l.cuModuleUnload, "cuModuleUnload"),
		req(&l.cuLaunchKernel, "cuLaunchKernel"),
		opt(&l.cuFuncSetAttribute, "cuFuncSetAttribute"),
		opt(&l.cuFuncGetAttribute, "cuFuncGetAttribute"),
		opt(&l.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
		opt(&l.cuStreamCreate, "cuStreamCreate"),
		opt(&l.cuStreamSynchronize, "cuStreamSynchronize"),
		opt(&l.cuStreamDestroy, "cuStreamDestroy_v2"),
		opt(&l.cuEventCreate, "cuEventCreate"),
		opt(&l.cuEventRecord, "cuEventRecord"),
		opt(&l.cuEventSynchronize, "cuEventSynchronize"),
		opt(&l.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
		opt(&l.cuEventDestroy, "cuEventDestroy_v2"),
		opt(&l.cuEventQuery, "cuEventQuery"),
		opt(&l.cuMemHostAlloc, "cuMemHostAlloc"),
		opt(&l.cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
		opt(&l.cuMemFreeHost, "cuMemFreeHost"),
		opt(&l.cuMemAllocManaged, "cuMemAllocManaged"),
		opt(&l.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
		opt(&l.cuStreamWaitEvent, "cuStreamWaitEvent"),
	}
}

// check turns a CUresult into an error naming the call and the CUDA error.
func (l *driverLib) check(call string, r int32) error {
	if r == cudaSuccess {
		return nil
	}
	e := &CUDAError{Call: call, Code: int(r)}
	var p *byte
	if l.cuGetErrorName != 0 && ccall(l.cuGetErrorName, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
		e.Name = cString(p)
	}
	p = nil
	if l.cuGetErrorString != 0 && ccall(l.cuGetErrorString, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
		e.Desc = cString(p)
	}
	return e
}

// missing is the error for an optional entry point the driver lacks.
func (l *driverLib) missing(call string) error {
	return &CUDAError{Call: call, Code: -1, Name: "SYMBOL_NOT_FOUND", Desc: "the driver library has no " + call}
}

// Device attributes (CUdevice_attribute).
const (
	attrMaxThreadsPerBlock        = 1
	attrMaxSharedMemPerBlock      = 8
	attrWarpSize                  = 10
	attrClockRate                 = 13
	attrMultiprocessorCount       = 16
	attrKernelExecTimeout         = 17
	attrPCIBusID                  = 33
	attrPCIDeviceID               = 34
	attrMemoryClockRate           = 36
	attrGlobalMemoryBusWidth      = 37
	attrL2CacheSize               = 38
	attrMaxThreadsPerSM           = 39
	attrPCIDomainID               = 50
	attrComputeCapabilityMajor    = 75
	attrComputeCapabilityMinor    = 76
	attrMaxSharedMemPerBlockOptin = 97
)

// Kernel attributes (CUfunction_attribute).
const (
	funcAttrLocalSizeBytes       = 3 // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: local memory a thread
	funcAttrMaxDynamicSharedSize = 8 // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
)

func (l *driverLib) attribute(dev int32, attr int) (int, error) {
	var v int32
	if err := l.check("cuDeviceGetAttribute", ccall(l.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev))); err != nil {
		return 0, err
	}
	return int(v), nil
}
