package main

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/submatch/submatch/engine"
)

// TestEngineFlagsLazy: count and list register the engines' own flags only when the command
// line may use them, and parse, check, resolve the engine and print help exactly as when every
// flag was registered up front (as they did before).
func TestEngineFlagsLazy(t *testing.T) {
	lines := [][]string{
		{}, {"g", "q"}, {"--engine", "cpu", "g", "q"}, {"--engine=auto", "g", "q"}, {"-v", "--threads", "2", "g", "q"},
		{"--stmatch-kernel", "generic", "--engine", "stmatch", "g", "q"}, {"--stmatch-kernel=query", "g", "q"},
		{"--stmtach-kernel", "generic", "g", "q"}, {"--genva-order", "paper"}, {"--geneva-order", "bogus", "--engine", "geneva", "g", "q"},
		{"--pbe-backend", "gpu", "--engine", "pbe", "g", "q"}, {"-pbe-partitioner=grow", "--engine", "pbe", "g", "q"},
		{"--pbe-workers", "2", "--pbe-backend", "gpu", "--engine", "pbe", "g", "q"},
		{"g", "--", "--stmatch-kernel"}, {"--threads", "x"}, {"--bogus"}, {"-h"}, {"--help"}, {"g", "-help", "q"},
		{"--engine", "nosuch", "g", "q"}, {"--engine", "", "g", "q"},
	}
	for _, n := range engine.Names() {
		lines = append(lines, []string{"--engine", n, "g", "q"})
	}
	for _, cmd := range []string{"count", "list"} {
		for _, args := range lines {
			eager, eagerEngine := parseMatch(t, cmd, args, true)
			lazy, lazyEngine := parseMatch(t, cmd, args, false)
			if eager != lazy || !reflect.DeepEqual(eagerEngine, lazyEngine) {
				t.Errorf("%s %q:\neager: %s %#v\nlazy:  %s %#v", cmd, args, eager, eagerEngine, lazy, lazyEngine)
			}
		}
	}
	// A configurable engine is built by its configure, as before, even when no flag of it is
	// given (configure from the defaults may differ from the registered engine).
	for _, e := range engine.Engines() {
		if _, ok := e.(engine.Configurable); !ok {
			continue
		}
		fs := newFlagSet("count", "", "")
		var f matchFlags
		f.register(fs)
		if _, err := f.parseArgs(fs, []string{"--engine", e.Name(), "g", "q"}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if f.configure[e.Name()] == nil {
			t.Errorf("--engine %s: its configure was not registered", e.Name())
		}
	}
	// Without a reason, the engines' flags stay out.
	for _, args := range [][]string{{"g", "q"}, {"--engine", "cpu", "g", "q"}, {"--engine=auto", "-v", "g", "q"}, {"g", "--", "--stmatch-kernel"}} {
		fs := newFlagSet("count", "", "")
		var f matchFlags
		f.register(fs)
		if _, err := f.parseArgs(fs, args, &bytes.Buffer{}); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if f.configure != nil || fs.Lookup("stmatch-kernel") != nil {
			t.Errorf("%q registered the engines' flags", args)
		}
	}
}

// parseMatch parses args as count or list does, with the engines' flags registered up front
// (eager) or as parseArgs decides, and describes everything the command goes on from: the
// positional arguments, the error, the help printed, check's verdict, and the engine resolved.
func parseMatch(t *testing.T, cmd string, args []string, eager bool) (string, engine.Engine) {
	t.Helper()
	fs := newFlagSet(cmd, "DATA QUERY", "summary")
	var f listFlags
	if cmd == "list" {
		f.register(fs)
	} else {
		f.matchFlags.register(fs)
	}
	var out bytes.Buffer
	var pos []string
	var err error
	if eager {
		f.registerEngineFlags()
		pos, err = parseArgs(fs, args, &out)
	} else {
		pos, err = f.parseArgs(fs, args, &out)
	}
	desc := fmt.Sprintf("pos %q err %v help %q", pos, err, out.String())
	if err != nil {
		return desc, nil
	}
	desc += fmt.Sprintf(" check %v", f.check())
	e, rerr := f.resolveEngine()
	if rerr != nil {
		return desc + fmt.Sprintf(" resolve %v", rerr), nil
	}
	return desc + " engine " + e.Name(), e
}
