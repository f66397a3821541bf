package gpu

import "context"

// StopPollSource is CUDA C++ for kernels that take a StopFlag: a package prepends it to its
// kernel source (it defines no kernel). It declares
//
//	bool stop_poll(const volatile unsigned* stop, unsigned long long* ctl)
//
// which says whether the host has raised the flag at stop (the StopFlag's Ptr; null: never).
// ctl is two words of device memory, zeroed before each launch: the next time any thread may
// read the host's word, and a word set once a read found it raised. Reads of pinned host memory
// by many warps at once are serialised (engine/stmatch measured a 25-fold slowdown), so one
// thread at a time, at most every STOP_POLL_NS (100 us), reads the host's word, winning its turn
// with a compare-and-swap on ctl[0], and relays what it saw to ctl[1], which the others read from
// device memory. Built for the host (CUDAHOST, package cudahost), stop_poll reads *stop directly.
const StopPollSource = `// stop polling (package gpu, StopPollSource)
#ifndef STOP_POLL_NS
#define STOP_POLL_NS 100000ull
#endif
#ifdef CUDAHOST
__device__ __forceinline__ bool stop_poll(const volatile unsigned* stop, unsigned long long* ctl) {
    return stop != 0 && *stop != 0;
}
#else
__device__ __forceinline__ bool stop_poll(const volatile unsigned* stop, unsigned long long* ctl) {
    if (stop == 0) return false;
    volatile unsigned long long* c = ctl;
    if (c[1] != 0) return true;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    const unsigned long long at = c[0];
    if (now >= at && atomicCAS(&ctl[0], at, now + STOP_POLL_NS) == at && *stop != 0) atomicExch(&ctl[1], 1ull);
    return c[1] != 0;
}
#endif
`

// LaunchStoppable runs fn on grid x block with args followed by the stop flag's device address
// (null when f is nil) and ctl, two words it zeroes first (the polling words of StopPollSource),
// and waits for it; while it runs, the end of ctx raises f. It returns ctx's error when ctx ended
// (the kernel's results are then partial), else the launch's.
func LaunchStoppable(ctx context.Context, f *StopFlag, ctl *Buffer, fn *Function, grid, block Dim3, args ...any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := ctl.Memset(0); err != nil {
		return err
	}
	stop := DevicePtr(0)
	if f != nil {
		stop = f.Ptr()
		defer f.RaiseWhenDone(ctx)()
	}
	err := fn.Launch(grid, block, 0, append(args, stop, ctl)...)
	if err == nil {
		err = fn.mod.dev.Synchronize()
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}
