// Package zkconnect parses a ZooKeeper connect string as the ZooKeeper
// client's ConnectStringParser reads it, "h1:p1,h2:p2/chroot": host:port
// servers, comma separated, port 2181 when left out, and an optional chroot
// after the last server that applies to all of them. It is shared by the
// broker's zookeeper.connect and the configs tool's --zookeeper.
//
// Errors describe the fault without a package prefix: the caller names the
// setting or flag it came from.
package zkconnect

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort applies to servers given without a port.
const DefaultPort = "2181"

// Parse splits a connect string into host:port servers (default port
// filled in) and the chroot ("" for none, and for "/"). Host names are
// not checked beyond being non-empty.
func Parse(v string) (servers []string, chroot string, err error) {
	hosts := v
	if i := strings.Index(v, "/"); i >= 0 {
		hosts, chroot = v[:i], v[i:]
		if chroot == "/" {
			chroot = ""
		} else if strings.HasSuffix(chroot, "/") || strings.Contains(chroot, "//") {
			return nil, "", fmt.Errorf("%w %q must be an absolute znode path without a trailing or doubled '/'", ErrChroot, chroot)
		}
	}
	if strings.TrimSpace(hosts) == "" {
		return nil, "", ErrNoServers
	}
	for _, item := range strings.Split(hosts, ",") {
		item = strings.TrimSpace(item)
		host, port := item, DefaultPort
		if strings.Contains(item, ":") {
			if host, port, err = net.SplitHostPort(item); err != nil {
				return nil, "", fmt.Errorf("server %q is not host[:port]", item)
			}
		}
		if host == "" {
			return nil, "", fmt.Errorf("server %q: bad host", item)
		}
		if n, perr := strconv.Atoi(port); perr != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("server %q: port must be 1..65535", item)
		}
		servers = append(servers, net.JoinHostPort(host, port))
	}
	return servers, chroot, nil
}

// Errors a caller may tell apart: no server at all, a malformed chroot.
var (
	ErrNoServers = errors.New("no ZooKeeper server given")
	ErrChroot    = errors.New("chroot")
)
