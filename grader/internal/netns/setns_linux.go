//go:build linux

package netns

import "syscall"

// setns moves the calling thread into the network namespace open at fd
// (setns(2)); the standard library has no wrapper for it.
func setns(fd uintptr) error {
	if _, _, errno := syscall.RawSyscall(sysSetns, fd, syscall.CLONE_NEWNET, 0); errno != 0 {
		return errno
	}
	return nil
}
