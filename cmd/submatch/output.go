package main

import (
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
