// Command hoplat measures what a gpu.Device.Do costs beyond its closure: a closure handed to a
// goroutine locked to its OS thread (the device's worker) and its result handed back, after the
// caller was idle for -gap (an update arriving at a low rate), k hand-offs in a row (a DCSM wave
// made seven before dcsm7: its upload, two events, two launches, the copy back, the events'
// time). No GPU is needed: the closure does nothing, so what is timed is the two thread
// switches of each hand-off. dcsm's waves now make their calls on the caller's own thread
// (gpu.Device.DoHere), which this command times as the "here" row (no hand-off).
//
//	go run ./scripts/hoplat [-gap 1ms] [-n 300]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"time"
)

type job struct {
	fn   func() error
	done chan error
}

func main() {
	gap := flag.Duration("gap", time.Millisecond, "idle time before each measurement")
	n := flag.Int("n", 300, "measurements per row")
	flag.Parse()
	jobs := make(chan job)
	go func() {
		runtime.LockOSThread()
		for j := range jobs {
			j.done <- j.fn()
		}
	}()
	do := func(fn func() error) error { // gpu.Device.Do's hand-off
		d := make(chan error, 1)
		jobs <- job{fn, d}
		return <-d
	}
	here := func(fn func() error) error { // gpu.Device.DoHere's: the caller's thread, locked
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		return fn()
	}
	nop := func() error { return nil }
	for _, row := range []struct {
		name string
		k    int
		call func(func() error) error
	}{{"do", 1, do}, {"do", 7, do}, {"here", 1, here}} {
		ts := make([]time.Duration, 0, *n)
		for range *n {
			time.Sleep(*gap)
			t0 := time.Now()
			for range row.k {
				_ = row.call(nop)
			}
			ts = append(ts, time.Since(t0))
		}
		slices.Sort(ts)
		fmt.Printf("%s x%d after %v idle: median %v, p90 %v\n", row.name, row.k, *gap, ts[len(ts)/2], ts[len(ts)*9/10])
	}
}
