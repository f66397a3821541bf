package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/submatch/submatch/gpu"
)

// TestWatchAuto: --engine auto keeps a small graph on the CPU engine, and with the size bar
// lowered it takes the CPU engine for patterns the GPU engines refuse (nine vertices, or
// disconnected) and, without a GPU, for any; the output is the CPU engine's every time.
func TestWatchAuto(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.stream", "e 1 3\ne 3 4\n-e 1 2\ne 2 4\n")
	nine := "(a)-(b)-(c)-(d)-(e)-(f)-(g)-(h)-(i)"
	_, noGPU := gpu.Open(t.Context())
	for _, c := range []struct {
		bar      int64
		pats     []string
		batch    string
		why      string // in the log line
		gpuKnown bool   // the reason holds with a GPU too
	}{
		{watchAutoGPUBytes, []string{triangle}, "1", "small data graph", true},
		{0, []string{nine}, "1", "does not take the patterns", true},
		{0, []string{"(a)-(b), (c)"}, "64", "does not take the patterns", true},
		{0, []string{triangle}, "2", "no GPU engine is made for this run", true},
		{0, []string{triangle}, "64", "no usable GPU", false},
	} {
		if !c.gpuKnown && noGPU == nil {
			continue // with a GPU this case chooses gcsm
		}
		defer func(b int64) { watchAutoGPUBytes = b }(watchAutoGPUBytes)
		watchAutoGPUBytes = c.bar
		args := append(append([]string{"watch", data}, c.pats...), "--updates", stream, "--batch", c.batch, "--unique", "--initial")
		code, want, errOut := runCmd(t, append(args, "--engine", "cpu")...)
		if code != 0 {
			t.Fatalf("%v: cpu: exit %d: %s", c.pats, code, errOut)
		}
		code, got, errOut := runCmd(t, append(args, "-v")...)
		if code != 0 {
			t.Fatalf("%v: auto: exit %d: %s", c.pats, code, errOut)
		}
		if !strings.Contains(errOut, "engine=cpu") || !strings.Contains(errOut, c.why) {
			t.Errorf("%v (bar %d): the log does not say engine=cpu for %q:\n%s", c.pats, c.bar, c.why, errOut)
		}
		if watchBody(got) != watchBody(want) {
			t.Errorf("%v: auto printed\n%s\nthe cpu engine\n%s", c.pats, got, want)
		}
	}
	if noGPU != nil && !errors.Is(noGPU, gpu.ErrNoGPU) {
		t.Fatalf("gpu.Open: %v, want ErrNoGPU", noGPU)
	}
}
