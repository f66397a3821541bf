//go:build !linux

package gpu

// threadID is unknown off Linux: nested Do calls are then not detected (and would deadlock).
func threadID() int { return -1 }
