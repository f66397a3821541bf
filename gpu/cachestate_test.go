package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// keyOf is the key function of src compiled with opts.
func keyOf(src string, opts []string) func(arch, nvrtc string) string {
	return func(arch, nvrtc string) string { return CacheKey(src, opts, arch, nvrtc) }
}

func TestCacheStateBeforeOpen(t *testing.T) {
	const src = "extern \"C\" __global__ void k() {}"
	h90 := Target{"sm_90", "12.8"}
	h80 := Target{"sm_80", "12.8"}
	dir := t.TempDir()
	cache := filepath.Join(dir, "kernels")

	if got := cacheState("", "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("cache off: %v, want not cached", got)
	}
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("no cache folder (a fresh machine): %v, want not cached", got)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("empty cache folder: %v, want not cached", got)
	}
	// An image of an unknown target, no record for this host: the cache cannot say.
	cacheStore(cache, CacheKey(src, nil, h90.Arch, h90.NVRTC), []byte{1})
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelUnknown {
		t.Errorf("no record for the host: %v, want unknown", got)
	}
	recordTargets(cache, "other", []Target{h90})
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelUnknown {
		t.Errorf("only another host's record: %v, want unknown", got)
	}
	recordTargets(cache, "h", []Target{h90})
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelCached {
		t.Errorf("image for the recorded target: %v, want cached", got)
	}
	if got := cacheState(cache, "h", keyOf(src+" ", nil)); got != KernelNotCached {
		t.Errorf("another source: %v, want not cached", got)
	}
	if got := cacheState(cache, "h", keyOf(src, []string{"-O3"})); got != KernelNotCached {
		t.Errorf("other options: %v, want not cached", got)
	}
	// Two kinds of device on the host: an image for each is needed.
	recordTargets(cache, "h", []Target{h90, h80, h90})
	if got := readTargets(cache, "h"); len(got) != 2 {
		t.Errorf("record %v: want 2 targets, each once", got)
	}
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("no image for one of two targets: %v, want not cached", got)
	}
	cacheStore(cache, CacheKey(src, nil, h80.Arch, h80.NVRTC), []byte{1})
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelCached {
		t.Errorf("images for both targets: %v, want cached", got)
	}
	// A newer NVRTC replaces the record: the images for the old one no longer count.
	recordTargets(cache, "h", []Target{{"sm_90", "13.0"}})
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("after an NVRTC upgrade: %v, want not cached", got)
	}
	// An empty image is no image.
	key := CacheKey(src, nil, "sm_90", "13.0")
	if err := os.WriteFile(filepath.Join(cache, key+".bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cacheState(cache, "h", keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("empty image: %v, want not cached", got)
	}
}

func TestRecordTargetsRejects(t *testing.T) {
	cache := t.TempDir()
	recordTargets(cache, "h", []Target{{"sm_90", ""}})
	recordTargets(cache, "h", []Target{{"sm 90", "12.8"}})
	recordTargets(cache, "h", nil)
	recordTargets("", "h", []Target{{"sm_90", "12.8"}})
	if got := readTargets(cache, "h"); got != nil {
		t.Errorf("incomplete targets were recorded: %v", got)
	}
}

func TestCacheStateAfterOpen(t *testing.T) {
	const src = "extern \"C\" __global__ void k() {}"
	cache := t.TempDir()
	t.Setenv(EnvKernelCache, cache)
	dev := func(arch, nvrtc string) *Device {
		return &Device{info: Info{Arch: arch, NVRTCVersion: nvrtc}, modules: map[string]*Module{}}
	}
	a, b := dev("sm_90", "12.8"), dev("sm_90", "12.8")
	if got := devicesState(nil, keyOf(src, nil)); got != KernelUnknown {
		t.Errorf("no device: %v, want unknown", got)
	}
	if got := devicesState([]*Device{dev("sm_90", "")}, keyOf(src, nil)); got != KernelUnknown {
		t.Errorf("no NVRTC: %v, want unknown", got)
	}
	if got := devicesState([]*Device{a, b}, keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("nothing cached: %v, want not cached", got)
	}
	key := CacheKey(src, nil, "sm_90", "12.8")
	a.modules[key] = &Module{}
	if got := devicesState([]*Device{a}, keyOf(src, nil)); got != KernelCached {
		t.Errorf("loaded on the device: %v, want cached", got)
	}
	if got := devicesState([]*Device{a, b}, keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("loaded on one device of two, not on disk: %v, want not cached", got)
	}
	cacheStore(cache, key, []byte{1})
	if got := devicesState([]*Device{a, b}, keyOf(src, nil)); got != KernelCached {
		t.Errorf("in the disk cache: %v, want cached", got)
	}
	if got := devicesState([]*Device{a, b, dev("sm_80", "12.8")}, keyOf(src, nil)); got != KernelNotCached {
		t.Errorf("another architecture: %v, want not cached", got)
	}
}

func TestKernelCacheStateUnregistered(t *testing.T) {
	if got := KernelCacheState("no-such-kernel.cu"); got != KernelUnknown {
		t.Errorf("unregistered kernel: %v, want unknown", got)
	}
}

// registerTestKernel registers a kernel source for one test and removes it (and its memoised
// cache keys) after, so that -count=N can register it again.
func registerTestKernel(t *testing.T, file, src string) {
	t.Helper()
	RegisterKernel(file, src)
	t.Cleanup(func() {
		registered.Lock()
		delete(registered.src, file)
		registered.Unlock()
		keyMemo.Range(func(k, _ any) bool {
			if k.([3]string)[0] == file {
				keyMemo.Delete(k)
			}
			return true
		})
	})
}

func TestKernelCacheStateRegistered(t *testing.T) {
	const file, src = "cachestate_test.cu", "extern \"C\" __global__ void cachestate() {}"
	registerTestKernel(t, file, src)
	cache := filepath.Join(t.TempDir(), "kernels")
	t.Setenv(EnvKernelCache, cache)
	old := opened.Load()
	t.Cleanup(func() { opened.Store(old) })

	opened.Store(nil) // before Open
	if got := KernelCacheState(file); got != KernelNotCached {
		t.Errorf("fresh machine: %v, want not cached", got)
	}
	recordTargets(cache, hostName(), []Target{{"sm_90", "12.8"}})
	if got := KernelCacheState(file); got != KernelNotCached {
		t.Errorf("recorded target, no image: %v, want not cached", got)
	}
	cacheStore(cache, CacheKey(src, nil, "sm_90", "12.8"), []byte{1})
	if got := KernelCacheState(file); got != KernelCached {
		t.Errorf("recorded target and its image: %v, want cached", got)
	}

	// After Open: the devices found decide, whatever the record says.
	devs := []*Device{{info: Info{Arch: "sm_100", NVRTCVersion: "12.8"}, modules: map[string]*Module{}}}
	opened.Store(&devs)
	if got := KernelCacheState(file); got != KernelNotCached {
		t.Errorf("opened device of another architecture: %v, want not cached", got)
	}
	noteOpened(devs)
	if got := readTargets(cache, hostName()); len(got) != 1 || got[0] != (Target{"sm_100", "12.8"}) {
		t.Errorf("record after Open: %v, want sm_100 12.8", got)
	}
	opened.Store(&[]*Device{})
	if got := KernelCacheState(file); got != KernelUnknown {
		t.Errorf("Open found no GPU: %v, want unknown", got)
	}
}

// TestGPUKernelCacheState (GPU): after Open, a registered kernel is not cached until compiled
// (a compile stopped by its context says so, *CompileStopped, and does not count), then is; the
// answer before Open, from the record of this host's targets, agrees once the record is there.
func TestGPUKernelCacheState(t *testing.T) {
	d := testDevice(t)
	cache := t.TempDir()
	t.Setenv(EnvKernelCache, cache)
	file := "cachestate_gpu_test.cu"
	src := iotaSrc + fmt.Sprintf("// %d\n", time.Now().UnixNano()) // fresh for this run
	registerTestKernel(t, file, src)
	if got := KernelCacheState(file); got != KernelNotCached {
		t.Fatalf("before compiling: %v, want not cached", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := d.CompileContext(ctx, src, file, nil)
	var stopped *CompileStopped
	if !errors.As(err, &stopped) || !errors.Is(err, context.DeadlineExceeded) || stopped.Name != file {
		t.Fatalf("compile under a 1 ms deadline: %v, want a *CompileStopped wrapping DeadlineExceeded", err)
	}
	t.Logf("stopped: %v", err)
	if _, err := d.Compile(src, file, nil); err != nil {
		t.Fatal(err)
	}
	if got := KernelCacheState(file); got != KernelCached {
		t.Fatalf("compiled: %v, want cached", got)
	}
	m, err := d.CompileContext(context.Background(), src, file, nil)
	if err != nil || m == nil {
		t.Fatalf("CompileContext of a compiled kernel: %v, %v", m, err)
	}

	// Before Open (as a new process would see it): the record decides.
	old := opened.Load()
	t.Cleanup(func() { opened.Store(old) })
	opened.Store(nil)
	if got := KernelCacheState(file); got != KernelUnknown {
		t.Errorf("before Open, no record in this cache: %v, want unknown", got)
	}
	recordTargets(cache, hostName(), []Target{{d.Arch(), d.Info().NVRTCVersion}})
	if got := KernelCacheState(file); got != KernelCached {
		t.Errorf("before Open, with the record: %v, want cached", got)
	}
	opened.Store(old)
	// Gone from the disk cache but loaded on the device: still cached in this process.
	if err := os.Remove(filepath.Join(cache, m.Key+".bin")); err != nil {
		t.Fatal(err)
	}
	if got := KernelCacheState(file); got != KernelCached {
		t.Errorf("loaded, not on disk: %v, want cached", got)
	}
}
