package csm

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

func TestProfileStream(t *testing.T) {
	gp, sp, qp := os.Getenv("CSM_G"), os.Getenv("CSM_S"), os.Getenv("CSM_Q")
	if gp == "" {
		t.Skip()
	}
	t0 := time.Now()
	g, err := formats.Load(gp, formats.Options{})
	t.Log("load", time.Since(t0))
	if err != nil {
		t.Fatal(err)
	}
	p, err := formats.LoadPattern(qp, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stream []updates.Update
	for u, err := range updates.ReadFile(sp, updates.Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, u)
	}
	t0 = time.Now()
	cpu0 := cpuTime()
	m, _ := Open(dynamic.FromGraph(g), []*pattern.Pattern{p}, Options{Threads: 1, SkipInvalid: true})
	var res Result
	var c, d uint64
	reps := 1
	if os.Getenv("CSM_REPS") != "" {
		reps = 10
		for i := range stream {
			u := stream[i]
			u.Kind = 1 - u.Kind
			stream = append(stream, u)
		}
	}
	for range reps {
		for i := range stream {
			if err := m.Apply(context.Background(), stream[i:i+1], nil, &res); err != nil {
				t.Fatal(err)
			}
			c += res.Deltas[0].Created
			d += res.Deltas[0].Destroyed
		}
	}
	t.Log(c, d, "stream", time.Since(t0), "cpu", cpuTime()-cpu0)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
