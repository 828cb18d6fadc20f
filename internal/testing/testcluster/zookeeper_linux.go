package testcluster

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the server if the test
// binary dies without running its cleanups (a -timeout panic, a kill), so no
// orphaned JVM holds memory and a port on the shared machine.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
