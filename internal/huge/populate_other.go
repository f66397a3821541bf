//go:build !linux

package huge

const canPopulate = false

func populate([]byte) bool { return false }
