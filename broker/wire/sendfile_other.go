//go:build !linux

package wire

import (
	"errors"
	"net"
	"os"
	"time"
)

var errSendfileUnsupported = errors.New("wire: sendfile unsupported")

// sendfileRegion is only implemented on Linux; elsewhere file parts use pread.
func sendfileRegion(*net.TCPConn, *os.File, int64, int64, time.Duration) (int64, error) {
	return 0, errSendfileUnsupported
}
