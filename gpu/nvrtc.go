package gpu

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// nvrtcLib holds the NVRTC entry points.
type nvrtcLib struct {
	ok   bool
	path string

	nvrtcVersion, nvrtcCreateProgram, nvrtcCompileProgram, nvrtcDestroyProgram uintptr
	nvrtcGetProgramLogSize, nvrtcGetProgramLog                                 uintptr
	nvrtcGetCUBINSize, nvrtcGetCUBIN, nvrtcGetPTXSize, nvrtcGetPTX             uintptr
	nvrtcGetErrorString                                                        uintptr

	errString func(int32) string
}

func (l *nvrtcLib) table() []symbol {
	req := func(dst *uintptr, names ...string) symbol { return symbol{names: names, dst: dst} }
	opt := func(dst *uintptr, names ...string) symbol { return symbol{names: names, dst: dst, optional: true} }
	return []symbol{
		req(&l.nvrtcVersion, "nvrtcVersion"),
		req(&l.nvrtcCreateProgram, "nvrtcCreateProgram"),
		req(&l.nvrtcCompileProgram, "nvrtcCompileProgram"),
		req(&l.nvrtcDestroyProgram, "nvrtcDestroyProgram"),
		req(&l.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"),
		req(&l.nvrtcGetProgramLog, "nvrtcGetProgramLog"),
		req(&l.nvrtcGetPTXSize, "nvrtcGetPTXSize"),
		req(&l.nvrtcGetPTX, "nvrtcGetPTX"),
		req(&l.nvrtcGetErrorString, "nvrtcGetErrorString"),
		// CUBIN output appeared in NVRTC 11.1.
		opt(&l.nvrtcGetCUBINSize, "nvrtcGetCUBINSize"),
		opt(&l.nvrtcGetCUBIN, "nvrtcGetCUBIN"),
	}
}

var nvrtcNames = []string{
	"NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	"NVRTC_ERROR_INVALID_INPUT", "NVRTC_ERROR_INVALID_PROGRAM", "NVRTC_ERROR_INVALID_OPTION",
	"NVRTC_ERROR_COMPILATION", "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	"NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION", "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	"NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "NVRTC_ERROR_INTERNAL_ERROR",
}

// bind prepares the typed wrappers once the symbols are resolved.
func (l *nvrtcLib) bind() {
	if l.nvrtcGetErrorString != 0 {
		purego.RegisterFunc(&l.errString, l.nvrtcGetErrorString)
	}
}

func (l *nvrtcLib) check(call string, r int32) error {
	if r == 0 {
		return nil
	}
	e := &NVRTCError{Call: call, Code: int(r)}
	if l.errString != nil {
		e.Name = l.errString(r)
	}
	if e.Name == "" && int(r) < len(nvrtcNames) {
		e.Name = nvrtcNames[r]
	}
	return e
}

// NVRTCVersion returns NVRTC's version as "major.minor", or an error wrapping ErrNoNVRTC.
func NVRTCVersion() (string, error) {
	rep := Discover()
	if !rtc.ok {
		return "", fmt.Errorf("%w: %s", ErrNoNVRTC, rep.NVRTC.Err)
	}
	var major, minor int32
	if err := rtc.check("nvrtcVersion", ccall(rtc.nvrtcVersion, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)))); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d.%d", major, minor), nil
}

// Output kinds of CompileSource.
const (
	OutputCUBIN = "cubin" // machine code for one real architecture (arch "sm_XY")
	OutputPTX   = "ptx"   // virtual ISA for the driver to compile (arch "compute_XY")
)

// CompileSource compiles CUDA C++ source with NVRTC for arch ("sm_90": a cubin; "compute_90": PTX)
// and returns the image. It needs no GPU, only NVRTC. The options always include
// --gpu-architecture=<arch>, -std=c++17 and -default-device; opts are added after them.
// A compile error is an *NVRTCError whose Log holds the compiler's log.
func CompileSource(src, name, arch string, opts []string) ([]byte, error) {
	rep := Discover()
	if !rtc.ok {
		return nil, fmt.Errorf("%w: %s", ErrNoNVRTC, rep.NVRTC.Err)
	}
	output := OutputCUBIN
	if len(arch) > 8 && arch[:8] == "compute_" {
		output = OutputPTX
	}
	if output == OutputCUBIN && rtc.nvrtcGetCUBIN == 0 {
		return nil, fmt.Errorf("%w: this NVRTC (%s) cannot produce cubins; use arch compute_XY", ErrNoNVRTC, rtc.path)
	}
	all := append(baseOptions(arch), opts...)

	var pin runtime.Pinner
	defer pin.Unpin()
	csrc, cname := cBytes(src), cBytes(name)
	pin.Pin(&csrc[0])
	pin.Pin(&cname[0])
	copts := make([]*byte, len(all))
	for i, o := range all {
		b := cBytes(o)
		pin.Pin(&b[0])
		copts[i] = &b[0]
	}
	var optsPtr uintptr
	if len(copts) > 0 {
		pin.Pin(&copts[0])
		optsPtr = uintptr(unsafe.Pointer(&copts[0]))
	}

	var prog uintptr
	if err := rtc.check("nvrtcCreateProgram", ccall(rtc.nvrtcCreateProgram, uintptr(unsafe.Pointer(&prog)),
		uintptr(unsafe.Pointer(&csrc[0])), uintptr(unsafe.Pointer(&cname[0])), 0, 0, 0)); err != nil {
		return nil, err
	}
	defer ccall(rtc.nvrtcDestroyProgram, uintptr(unsafe.Pointer(&prog)))

	r := ccall(rtc.nvrtcCompileProgram, prog, uintptr(len(copts)), optsPtr)
	log := programLog(prog)
	if err := rtc.check("nvrtcCompileProgram", r); err != nil {
		ne := err.(*NVRTCError)
		ne.Program = name
		ne.Log = log
		return nil, ne
	}

	sizeFn, getFn, sizeCall, getCall := rtc.nvrtcGetCUBINSize, rtc.nvrtcGetCUBIN, "nvrtcGetCUBINSize", "nvrtcGetCUBIN"
	if output == OutputPTX {
		sizeFn, getFn, sizeCall, getCall = rtc.nvrtcGetPTXSize, rtc.nvrtcGetPTX, "nvrtcGetPTXSize", "nvrtcGetPTX"
	}
	var n uintptr
	if err := rtc.check(sizeCall, ccall(sizeFn, prog, uintptr(unsafe.Pointer(&n)))); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &NVRTCError{Call: sizeCall, Name: "empty output", Program: name, Log: log}
	}
	img := make([]byte, n)
	if err := rtc.check(getCall, ccall(getFn, prog, uintptr(unsafe.Pointer(&img[0])))); err != nil {
		return nil, err
	}
	return img, nil
}

func baseOptions(arch string) []string {
	return []string{"--gpu-architecture=" + arch, "-std=c++17", "-default-device"}
}

func programLog(prog uintptr) string {
	var n uintptr
	if ccall(rtc.nvrtcGetProgramLogSize, prog, uintptr(unsafe.Pointer(&n))) != 0 || n <= 1 {
		return ""
	}
	b := make([]byte, n)
	if ccall(rtc.nvrtcGetProgramLog, prog, uintptr(unsafe.Pointer(&b[0]))) != 0 {
		return ""
	}
	for len(b) > 0 && (b[len(b)-1] == 0 || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return string(b)
}
