package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkOutput refuses an output path that would overwrite one of the inputs (the same file, or a
// file inside an input folder), that is a folder, or whose folder does not exist. flagName names
// it in the message.
func checkOutput(flagName, out string, inputs ...string) error {
	ost, err := os.Stat(out)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
				return &inputError{msg: fmt.Sprintf("%s %s: no folder %s to write it in", flagName, out, filepath.Dir(out))}
			}
			return checkOutputInside(flagName, out, inputs)
		}
		return &inputError{msg: fmt.Sprintf("%s %s: %v", flagName, out, errors.Unwrap(err))}
	}
	if ost.IsDir() {
		return usagef("%s %s: is a folder; name a file", flagName, out)
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(ist, ost) {
			return usagef("%s %s: is the input file %s; writing it would destroy the input", flagName, out, in)
		}
	}
	return checkOutputInside(flagName, out, inputs)
}

// checkFileOutput is checkOutput for an output written to a temporary file renamed into place
// (a snapshot, a PNG, a checkpoint): an existing path that is not a regular file (a device such as
// /dev/full, a FIFO, a link to one) is refused too, before any work, with hint saying what to do
// instead; the rename would otherwise fail only once the output was made.
func checkFileOutput(flagName, out, hint string, inputs ...string) error {
	if err := checkOutput(flagName, out, inputs...); err != nil {
		return err
	}
	if st, err := os.Stat(out); err == nil && !st.Mode().IsRegular() {
		return usagef("%s %s: is not a regular file (a device or a pipe); %s", flagName, out, hint)
	}
	return nil
}

// checkOutputDir refuses an output folder that exists as something else (a file), before any
// work; a folder that does not exist yet is created later, with its parents.
func checkOutputDir(flagName, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("%s %s: is a file, not a folder; name a folder (created if needed)", flagName, dir)
	}
	return nil
}

// checkOutputInside refuses an output inside an input folder (a GraphMiner graph).
func checkOutputInside(flagName, out string, inputs []string) error {
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		ist, err := os.Stat(in)
		if err != nil || !ist.IsDir() {
			continue
		}
		abs, err := filepath.Abs(in)
		if err == nil && (dir == abs || strings.HasPrefix(dir, abs+string(filepath.Separator))) {
			return usagef("%s %s: is inside the input folder %s", flagName, out, in)
		}
	}
	return nil
}

// openWaiting opens an output that is not a regular file (/dev/stdout, a device, a FIFO) for
// writing, truncated as os.Create would, so that ctx ends the wait: opening a FIFO waits for a
// reader, in a system call that neither Ctrl-C nor --timeout interrupts. When ctx ends first,
// the open is left to finish (or not) in its goroutine, which closes what it opened.
func openWaiting(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened) // unbuffered: a send succeeds only while the caller waits
	abandoned := make(chan struct{})
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		select {
		case done <- opened{f, err}:
		case <-abandoned: // the caller gave up: nobody will write to it
			if f != nil {
				f.Close()
			}
		}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		close(abandoned)
		return nil, ctx.Err()
	}
}
