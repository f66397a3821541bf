package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/submatch/submatch/gpu"
)

// A kernel that polls the stop flag (StopPollSource prepended to its source) runs until the
// context ends; LaunchStoppable then returns the context's error. (Compiled, not run: it needs a
// GPU.)
func ExampleLaunchStoppable() {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	devs, err := gpu.Open(ctx)
	if err != nil || len(devs) == 0 {
		fmt.Println("no GPU")
		return
	}
	d := devs[0]
	src := gpu.StopPollSource + `
extern "C" __global__ void spin(unsigned long long* n, const volatile unsigned* stop, unsigned long long* ctl) {
    while (!stop_poll(stop, ctl)) atomicAdd(n, 1ull);
}`
	mod, err := d.Compile(src, "spin.cu", nil)
	if err != nil {
		panic(err)
	}
	fn, err := mod.Function("spin")
	if err != nil {
		panic(err)
	}
	n, err := d.Alloc(8)
	if err != nil {
		panic(err)
	}
	defer n.Free()
	ctl, err := d.Alloc(16)
	if err != nil {
		panic(err)
	}
	defer ctl.Free()
	stop, err := d.NewStopFlag()
	if err != nil {
		fmt.Println("no mapped host memory: the kernel could not be stopped")
		return
	}
	defer stop.Free()
	err = gpu.LaunchStoppable(ctx, stop, ctl, fn, gpu.Dim3{X: 1}, gpu.Dim3{X: 32}, n)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
}
