package config

import (
	"errors"
	"fmt"
	"net"

	"kafgo/internal/zkconnect"
)

// parseZooKeeperConnect splits "h1:p1,h2:p2/chroot" into host:port
// servers (default port filled in) and the chroot ("" for none), as
// internal/zkconnect reads it, and checks each host name as listeners'
// hosts are checked.
func parseZooKeeperConnect(v string) (servers []string, chroot string, err error) {
	servers, chroot, err = zkconnect.Parse(v)
	if errors.Is(err, zkconnect.ErrNoServers) {
		return nil, "", fmt.Errorf("%w: %v (leave the key unset for the embedded store)", ErrInvalidValue, err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	for _, s := range servers {
		if host, _, _ := net.SplitHostPort(s); !validHost(host) {
			return nil, "", fmt.Errorf("%w: server %q: bad host", ErrInvalidValue, s)
		}
	}
	return servers, chroot, nil
}

func zkConnect(v string) error {
	_, _, err := parseZooKeeperConnect(v)
	return err
}
