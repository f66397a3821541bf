// Command gpuhog takes GPU memory away from every other process, to run submatch on a GPU that
// seems smaller than it is: a graph larger than all the memory the GPU can give, which the
// device machines (an H200 of 141 GiB beside a host of 128 GiB) cannot otherwise show (issues 19
// and 21). It allocates device memory on the first GPU until only -leave bytes are free, prints
// one line saying so, and holds it until it is interrupted or terminated.
//
//	go build -o gpuhog ./scripts/gpuhog
//	./gpuhog -leave 3GiB & hog=$!; ...; kill $hog
//
// The memory is the device's own (cuMemAlloc), which the driver cannot evict for another
// process, so unified memory is oversubscribed too, as on a GPU of that size.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/bytesize"
)

func main() {
	leave := flag.String("leave", "3GiB", "memory to leave free on the GPU")
	flag.Parse()
	keep, err := bytesize.Parse(*leave)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gpuhog: -leave %q: %v\n", *leave, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	devs, err := gpu.Open(ctx)
	if err != nil || len(devs) == 0 {
		fmt.Fprintf(os.Stderr, "gpuhog: no GPU: %v\n", err)
		os.Exit(1)
	}
	d := devs[0]
	var held []*gpu.Buffer
	var total uint64
	// Chunks halve as the free memory nears the goal; they are outside the device's budget, whose
	// margin would stop the loop short of it.
	for chunk := uint64(8 << 30); chunk >= 64<<20; {
		free, _, err := d.MemInfo()
		if err != nil {
			fmt.Fprintf(os.Stderr, "gpuhog: %v\n", err)
			os.Exit(1)
		}
		if free <= keep || free-keep < chunk {
			chunk /= 2
			continue
		}
		b, err := d.AllocOutsideBudget(chunk)
		if err != nil {
			chunk /= 2
			continue
		}
		held = append(held, b)
		total += chunk
	}
	free, all, _ := d.MemInfo()
	fmt.Printf("gpuhog: holding %s of %s on GPU %d; %s free\n", gpu.FormatBytes(total), gpu.FormatBytes(all), d.Ordinal(), gpu.FormatBytes(free))
	<-ctx.Done()
	for _, b := range held {
		b.Free()
	}
}
