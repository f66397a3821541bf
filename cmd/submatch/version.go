package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; otherwise it comes from the
// build's VCS stamp.
var version = ""

func init() {
	registerCommand(command{name: "version", summary: "print the version", run: runVersion})
}

func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok {
			if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						modified = "+dirty"
					}
				}
			}
			if rev != "" {
				if len(rev) > 12 {
					rev = rev[:12]
				}
				v += " " + rev + modified
			}
		}
	}
	return fmt.Sprintf("submatch %s (%s %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "", "Prints the version of submatch and of the Go toolchain that built it.")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 0 {
		return exitCode(stderr, usagef("version takes no arguments"))
	}
	fmt.Fprintln(stdout, versionString())
	return exitOK
}
