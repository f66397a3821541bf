package gpu

import (
	"errors"
	"fmt"
)

// ErrNoGPU is wrapped by every error that means "no usable NVIDIA GPU here": the driver library
// is missing, cuInit failed, or there are no devices. Callers fall back to the CPU on it.
var ErrNoGPU = errors.New("gpu: no usable NVIDIA GPU")

// ErrNoNVRTC is wrapped by the errors of Compile when the NVRTC library could not be loaded.
var ErrNoNVRTC = errors.New("gpu: NVRTC not available")

// ErrBudget is matched (errors.Is) by every allocation refused for lack of device memory: refused
// by the Budget before calling CUDA, or refused by CUDA itself with CUDA_ERROR_OUT_OF_MEMORY.
var ErrBudget = errors.New("gpu: device memory budget exceeded")

// BudgetError is the concrete error behind ErrBudget.
type BudgetError struct {
	Device    int    // device ordinal, -1 when the budget is not attached to a device
	Requested uint64 // bytes asked for
	Available uint64 // bytes left in the budget when asked
	Limit     uint64 // the budget's limit
	CUDA      error  // non-nil when CUDA itself refused (CUDA_ERROR_OUT_OF_MEMORY)
}

func (e *BudgetError) Error() string {
	where := "gpu"
	if e.Device >= 0 {
		where = fmt.Sprintf("gpu %d", e.Device)
	}
	if e.CUDA != nil {
		return fmt.Sprintf("%s: device memory budget exceeded: asked for %s, budget has %s left of %s, and the device refused: %v",
			where, FormatBytes(e.Requested), FormatBytes(e.Available), FormatBytes(e.Limit), e.CUDA)
	}
	return fmt.Sprintf("%s: device memory budget exceeded: asked for %s, %s left of a %s budget",
		where, FormatBytes(e.Requested), FormatBytes(e.Available), FormatBytes(e.Limit))
}

// Is makes errors.Is(err, ErrBudget) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// Unwrap returns the CUDA error, if any.
func (e *BudgetError) Unwrap() error { return e.CUDA }

// CUDA result codes used by the package.
const (
	cudaSuccess           = 0
	cudaErrorOutOfMemory  = 2
	cudaErrorNoDevice     = 100
	cudaErrorInvalidValue = 1
	cudaErrorNotReady     = 600 // CUDA_ERROR_NOT_READY: cuEventQuery's work not done yet
)

// CUDAError is a failed CUDA driver call.
type CUDAError struct {
	Call string // the driver function, e.g. "cuMemAlloc_v2"
	Code int    // the CUresult
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY" (from cuGetErrorName)
	Desc string // from cuGetErrorString
}

func (e *CUDAError) Error() string {
	name := e.Name
	if name == "" {
		name = "CUDA error"
	}
	if e.Desc != "" {
		return fmt.Sprintf("%s: %s (%d): %s", e.Call, name, e.Code, e.Desc)
	}
	return fmt.Sprintf("%s: %s (%d)", e.Call, name, e.Code)
}

// NVRTCError is a failed NVRTC call; for nvrtcCompileProgram, Log holds the compiler's log.
type NVRTCError struct {
	Call    string
	Code    int
	Name    string // from nvrtcGetErrorString
	Program string // the program name given to Compile
	Log     string
}

func (e *NVRTCError) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Call, e.Name, e.Code)
	if e.Program != "" {
		s = e.Program + ": " + s
	}
	if e.Log != "" {
		s += "\n" + e.Log
	}
	return s
}
