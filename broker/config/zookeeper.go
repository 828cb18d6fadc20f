package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// defaultZooKeeperPort applies to zookeeper.connect hosts given without a
// port, as the ZooKeeper client does.
const defaultZooKeeperPort = "2181"

// parseZooKeeperConnect splits "h1:p1,h2:p2/chroot" into host:port
// servers (default port filled in) and the chroot ("" for none). The chroot
// follows the last server, as the ZooKeeper client's ConnectStringParser
// reads it.
func parseZooKeeperConnect(v string) (servers []string, chroot string, err error) {
	hosts := v
	if i := strings.Index(v, "/"); i >= 0 {
		hosts, chroot = v[:i], v[i:]
		if chroot == "/" {
			chroot = ""
		} else if strings.HasSuffix(chroot, "/") || strings.Contains(chroot, "//") {
			return nil, "", fmt.Errorf("%w: chroot %q must be an absolute znode path without a trailing or doubled '/'", ErrInvalidValue, chroot)
		}
	}
	for _, item := range splitList(hosts) {
		host, port := item, defaultZooKeeperPort
		if strings.Contains(item, ":") {
			if host, port, err = net.SplitHostPort(item); err != nil {
				return nil, "", fmt.Errorf("%w: server %q is not host[:port]", ErrInvalidValue, item)
			}
		}
		if host == "" || !validHost(host) {
			return nil, "", fmt.Errorf("%w: server %q: bad host", ErrInvalidValue, item)
		}
		if n, perr := strconv.Atoi(port); perr != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("%w: server %q: port must be 1..65535", ErrInvalidValue, item)
		}
		servers = append(servers, net.JoinHostPort(host, port))
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("%w: no ZooKeeper server given (leave the key unset for the embedded store)", ErrInvalidValue)
	}
	return servers, chroot, nil
}

func zkConnect(v string) error {
	_, _, err := parseZooKeeperConnect(v)
	return err
}
