package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/submatch/submatch/gpu"
)

// processStart is when the process started, as near as the command can tell: the main package's
// initialisation, which runs after the runtime's and every imported package's (about a
// millisecond after exec).
var processStart = time.Now()

// phases times a command's steps for its -v log, each from the end of the one before (the first
// from processStart).
type phases struct {
	names []string
	ends  []time.Duration // since processStart
}

// mark ends the phase name now.
func (p *phases) mark(name string) {
	p.names = append(p.names, name)
	p.ends = append(p.ends, time.Since(processStart))
}

// end returns when the phase name ended (since processStart), or false when it has not.
func (p *phases) end(name string) (time.Duration, bool) {
	for i, n := range p.names {
		if n == name {
			return p.ends[i], true
		}
	}
	return 0, false
}

// log writes the phases as one debug record, msg, and, when this process started CUDA, where
// that start went (gpu.OpenTimes) and when it was ready; after is the phase it overlapped (its
// "wait" is how long the GPU was still starting when that phase ended, negative when it was
// ready before). What follows the last mark (the process's exit, where the OS releases the GPU)
// is only measurable from outside.
func (p *phases) log(log *slog.Logger, msg, after string) {
	ctx := context.Background()
	if !log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := make([]slog.Attr, 0, len(p.names)+2)
	var prev time.Duration
	for i, n := range p.names {
		attrs = append(attrs, slog.Duration(n, p.ends[i]-prev))
		prev = p.ends[i]
	}
	// The wall-clock time of processStart, in µs since the epoch: a caller that noted when it
	// started the process (bash's EPOCHREALTIME) and when it ended splits the time outside these
	// phases into the start before processStart (exec, the runtime, the imported packages'
	// initialisation) and the exit after the last phase.
	attrs = append(attrs, slog.Duration("total", prev), slog.Int64("start_unix_us", processStart.UnixMicro()))
	log.LogAttrs(ctx, slog.LevelDebug, msg, attrs...)
	t, ok := gpu.OpenTimes()
	if !ok {
		return
	}
	began := t.Began.Sub(processStart)
	gattrs := []slog.Attr{
		slog.Duration("began", began), slog.Duration("discover", t.Discover), slog.Duration("init", t.Init),
		slog.Duration("devices", t.Devices), slog.Duration("context", t.Context), slog.Duration("nvrtc", t.NVRTC),
		slog.Duration("total", t.Total), slog.Duration("ready", began+t.Total),
	}
	if end, ok := p.end(after); ok {
		gattrs = append(gattrs, slog.Duration("wait", began+t.Total-end))
	}
	log.LogAttrs(ctx, slog.LevelDebug, "gpu: start", gattrs...)
}
