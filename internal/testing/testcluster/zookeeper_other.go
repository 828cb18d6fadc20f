//go:build !linux

package testcluster

import "os/exec"

// setParentDeathSignal has no portable equivalent off Linux; t.Cleanup
// still stops the server on every normal test exit.
func setParentDeathSignal(cmd *exec.Cmd) {}
