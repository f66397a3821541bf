// Command autoexplain prints what `submatch count --engine auto --explain` would print as its
// engine line on a machine with a GPU, on one without: the decision of --engine auto for each
// query on a data graph, with every registered engine's prediction, a GPU taken as present (its
// memory -free and -total bytes, its kernels compiled) and -gpu-memory as --gpu-memory. Issue 21:
// the out-of-core predictions (pbe, sgsi, stmatch's host and managed modes) on the VM.
//
//	go run ./scripts/autoexplain -gpu-memory 67108864 -threads 16 DATA QUERY...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	_ "github.com/submatch/submatch/engine/cpu"
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/pbe"
	_ "github.com/submatch/submatch/engine/sgsi"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gpu"
)

func main() {
	limit := flag.Uint64("gpu-memory", 0, "--gpu-memory in bytes (0: none)")
	free := flag.Uint64("free", 139<<30, "the GPU's free memory in bytes")
	total := flag.Uint64("total", 140<<30, "the GPU's whole memory in bytes")
	threads := flag.Int("threads", 16, "host threads")
	name := flag.String("gpu", "NVIDIA H200", "the GPU taken as present")
	var sem engine.Semantics
	flag.BoolVar(&sem.Induced, "induced", false, "count induced matches")
	flag.BoolVar(&sem.Unique, "unique", false, "count each subgraph once")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: autoexplain [flags] DATA QUERY...")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Args()[1:], sem, *limit, *free, *total, *threads, *name); err != nil {
		fmt.Fprintln(os.Stderr, "autoexplain:", err)
		os.Exit(1)
	}
}

func run(data string, queries []string, sem engine.Semantics, limit, free, total uint64, threads int, name string) error {
	ctx := context.Background()
	g, err := formats.LoadContext(ctx, data, formats.Options{})
	if err != nil {
		return fmt.Errorf("loading %s: %w", data, err)
	}
	a := auto.Engine{Rules: &auto.Rules{
		GPU:         func(context.Context) (string, error) { return name, nil },
		Memory:      func(context.Context) (uint64, uint64) { return free, total },
		KernelState: func(string) gpu.KernelState { return gpu.KernelCached },
	}}
	for _, q := range queries {
		p, err := formats.LoadPattern(q, formats.Options{})
		if err != nil {
			return fmt.Errorf("loading %s: %w", q, err)
		}
		d, err := a.Decide(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads, GPUMemoryLimit: limit}, false)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		d.Release()
		fmt.Printf("%s: %s\n", filepath.Base(q), d.Explain())
	}
	return nil
}
