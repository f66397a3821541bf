package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/submatch/submatch/gpu"
)

func init() {
	registerCommand(command{name: "gpu-info", summary: "list the NVIDIA GPUs, the CUDA driver and NVRTC, and where each library was found", run: runGPUInfo})
}

// gpuInfoOutput is what gpu-info --json prints.
type gpuInfoOutput struct {
	Devices      []gpu.Info      `json:"devices"`
	Error        string          `json:"error,omitempty"` // why there is no usable GPU
	DeviceErrors []string        `json:"device_errors,omitempty"`
	Libraries    gpu.Report      `json:"libraries"`
	NVRTCVersion string          `json:"nvrtc_version,omitempty"`
	NVRTCError   string          `json:"nvrtc_error,omitempty"`
	KernelCache  string          `json:"kernel_cache"`
	Kernels      []gpuKernelInfo `json:"kernels,omitempty"`
}

// gpuKernelInfo reports the compilation of one embedded kernel (--compile).
type gpuKernelInfo struct {
	File      string  `json:"file"`
	Device    int     `json:"device"`
	Arch      string  `json:"arch"`
	CacheHit  bool    `json:"cache_hit"`
	CompileMS float64 `json:"compile_ms"`
	LoadMS    float64 `json:"load_ms"`
	Bytes     int     `json:"bytes"`
	Error     string  `json:"error,omitempty"`
}

func runGPUInfo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gpu-info", "",
		"Lists the NVIDIA GPUs (name, compute capability, multiprocessors, memory, memory budget), the\n"+
			"CUDA driver and NVRTC versions, and where each library was found; without a usable GPU it says\n"+
			"why (every path tried and its error) and still exits 0, except with --compile (nothing could be\n"+
			"compiled: exit 1, as when a kernel fails to compile). Libraries are found at run time:\n"+
			"SUBMATCH_LIBCUDA and SUBMATCH_NVRTC override the search, SUBMATCH_KERNEL_CACHE the kernel cache.")
	var jsonOut, verbose, compile bool
	fs.BoolVar(&jsonOut, "json", false, "print one JSON object")
	fs.BoolVar(&verbose, "v", false, "list every path tried, also for libraries that were found")
	fs.BoolVar(&compile, "compile", false, "also compile every embedded kernel for each device (through the kernel cache)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) > 0 {
		return exitCode(stderr, usagef("gpu-info takes no arguments"))
	}

	out := gpuInfoOutput{Devices: []gpu.Info{}, KernelCache: gpu.CacheDir()}
	devs, err := gpu.Open(ctx)
	if err != nil {
		out.Error = err.Error()
	}
	out.DeviceErrors = gpu.DeviceErrors()
	out.Libraries = gpu.Discover()
	if v, err := gpu.NVRTCVersion(); err != nil {
		out.NVRTCError = err.Error()
	} else {
		out.NVRTCVersion = v
	}
	for _, d := range devs {
		out.Devices = append(out.Devices, d.Info())
	}
	if compile {
		for _, d := range devs {
			for _, f := range gpu.KernelFiles() {
				k := gpuKernelInfo{File: f, Device: d.Ordinal(), Arch: d.Arch()}
				m, err := d.CompileKernel(f, nil)
				if err != nil {
					k.Error = err.Error()
				} else {
					k.CacheHit, k.Bytes = m.CacheHit, m.ImageBytes
					k.CompileMS = float64(m.CompileTime) / float64(time.Millisecond)
					k.LoadMS = float64(m.LoadTime) / float64(time.Millisecond)
				}
				out.Kernels = append(out.Kernels, k)
			}
		}
	}

	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitCode(stderr, err)
		}
	} else {
		printGPUInfo(stdout, out, verbose)
	}
	if compile {
		// --compile asks for kernels: having none, or any that failed, is a failure.
		failed := 0
		for _, k := range out.Kernels {
			if k.Error != "" {
				failed++
			}
		}
		switch {
		case len(devs) == 0:
			return exitCode(stderr, fmt.Errorf("gpu-info --compile: no usable GPU, so nothing was compiled"))
		case len(out.Kernels) == 0:
			return exitCode(stderr, fmt.Errorf("gpu-info --compile: no embedded kernels to compile"))
		case failed > 0:
			return exitCode(stderr, fmt.Errorf("gpu-info --compile: %d of %d kernel compilations failed", failed, len(out.Kernels)))
		}
	}
	return exitOK
}

func printGPUInfo(w io.Writer, out gpuInfoOutput, verbose bool) {
	lib := func(label string, r gpu.LibraryReport) {
		if r.Found() {
			fmt.Fprintf(w, "%-16s %s\n", label+":", r.Path)
		} else {
			reason := r.Err
			if reason == "" {
				reason = "not found"
			}
			fmt.Fprintf(w, "%-16s none: %s\n", label+":", reason)
		}
		if verbose || !r.Found() {
			for _, a := range r.Tried {
				if a.Err == "" {
					fmt.Fprintf(w, "    tried %s: ok\n", a.Path)
				} else if verbose || a.Err != "not present" {
					fmt.Fprintf(w, "    tried %s: %s\n", a.Path, a.Err)
				}
			}
			if !verbose && !r.Found() {
				n := 0
				for _, a := range r.Tried {
					if a.Err == "not present" {
						n++
					}
				}
				if n > 0 {
					fmt.Fprintf(w, "    (%d more paths not present; -v lists them)\n", n)
				}
			}
		}
	}
	lib("CUDA driver", out.Libraries.Driver)
	lib("NVRTC", out.Libraries.NVRTC)
	if out.Libraries.NVRTC.Found() {
		lib("NVRTC builtins", out.Libraries.NVRTCBuiltins)
		fmt.Fprintf(w, "%-16s %s\n", "NVRTC version:", out.NVRTCVersion)
	}
	cache := out.KernelCache
	if cache == "" {
		cache = "off"
	}
	fmt.Fprintf(w, "%-16s %s\n", "kernel cache:", cache)
	if out.Error != "" {
		fmt.Fprintf(w, "\nno GPU: %s\n", out.Error)
	}
	for _, e := range out.DeviceErrors {
		fmt.Fprintf(w, "device not started: %s\n", e)
	}
	if len(out.Devices) == 0 {
		return
	}
	fmt.Fprintf(w, "%-16s CUDA %s\n", "driver supports:", gpu.CUDAVersionString(out.Devices[0].DriverVersion))
	fmt.Fprintf(w, "\n%d device(s):\n", len(out.Devices))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  gpu\tname\tcompute\tSMs\tmemory\tfree\tbudget\tshared/block (opt-in)\tL2\tPCI")
	for _, i := range out.Devices {
		fmt.Fprintf(tw, "  %d\t%s\t%d.%d (%s)\t%d\t%s\t%s\t%s\t%s (%s)\t%s\t%s\n", i.Ordinal, i.Name, i.ComputeMajor, i.ComputeMinor, i.Arch,
			i.SMs, gpu.FormatBytes(i.TotalMem), gpu.FormatBytes(i.FreeMem), gpu.FormatBytes(i.BudgetLimit),
			gpu.FormatBytes(uint64(i.SharedMemPerBlock)), gpu.FormatBytes(uint64(i.SharedMemPerBlockOptin)),
			gpu.FormatBytes(uint64(i.L2CacheBytes)), i.PCIBusID)
	}
	tw.Flush()
	if len(out.Kernels) > 0 {
		fmt.Fprintln(w, "\nkernels:")
		tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  file\tgpu\tarch\tcache\tcompile ms\tload ms\tbytes\terror")
		for _, k := range out.Kernels {
			hit := "miss"
			if k.CacheHit {
				hit = "hit"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%.1f\t%.1f\t%d\t%s\n", k.File, k.Device, k.Arch, hit, k.CompileMS, k.LoadMS, k.Bytes, oneLine(k.Error))
		}
		tw.Flush()
	}
}
