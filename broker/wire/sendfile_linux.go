//go:build linux

package wire

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// sendfileChunk is how much one deadline covers; see ServerConfig.WriteTimeout.
const sendfileChunk = 4 << 20

var errSendfileUnsupported = errors.New("wire: sendfile unsupported")

// sendfileSyscall is a variable so tests can inject kernel refusals.
var sendfileSyscall = syscall.Sendfile

// sendfileRegion sends [off, off+n) of f on tc with sendfile(2), passing an
// explicit offset each call so f's shared offset is never used. It returns the
// bytes sent; errSendfileUnsupported (wrapped) means the caller may copy the
// rest another way.
func sendfileRegion(tc *net.TCPConn, f *os.File, off, n int64, timeout time.Duration) (int64, error) {
	out, err := tc.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errSendfileUnsupported, err)
	}
	in, err := f.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errSendfileUnsupported, err)
	}
	var sent int64
	var opErr error
	// Control keeps f's descriptor from being closed and reused under us.
	ctlErr := in.Control(func(infd uintptr) {
		for sent < n && opErr == nil {
			end := min(n, sent+sendfileChunk)
			if timeout > 0 {
				_ = tc.SetWriteDeadline(time.Now().Add(timeout))
			}
			// rc.Write calls the function again when the socket becomes
			// writable after it returns false, honouring the write deadline.
			werr := out.Write(func(outfd uintptr) bool {
				for sent < end {
					pos := off + sent
					m, e := sendfileSyscall(int(outfd), int(infd), &pos, int(end-sent))
					if m > 0 {
						sent += int64(m)
					}
					switch {
					case e == syscall.EINTR:
						continue
					case e == syscall.EAGAIN:
						return false
					case e == syscall.EINVAL, e == syscall.ENOSYS, e == syscall.EOPNOTSUPP:
						opErr = fmt.Errorf("%w: %w", errSendfileUnsupported, e)
						return true
					case e != nil:
						opErr = fmt.Errorf("wire: sendfile %s: %w", f.Name(), e)
						return true
					case m == 0:
						opErr = fmt.Errorf("%w: %s ended %d bytes early at offset %d", errShortFile, f.Name(), n-sent, off+sent)
						return true
					}
				}
				return true
			})
			if werr != nil && opErr == nil {
				opErr = fmt.Errorf("wire: sendfile %s: %w", f.Name(), werr)
			}
		}
	})
	if ctlErr != nil && opErr == nil {
		opErr = fmt.Errorf("wire: sendfile %s: %w", f.Name(), ctlErr)
	}
	return sent, opErr
}
