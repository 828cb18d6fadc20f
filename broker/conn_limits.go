package broker

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"time"

	"kafgo/broker/config"
	"kafgo/broker/wire"
)

// connLimits turns the connection limit configs into the wire server's
// limits: max.connections, listener.name.<l>.max.connections,
// max.connections.per.ip and its overrides (host names resolved here, once
// per change, as Kafka resolves them when the config is applied), with the
// inter-broker listener protected.
func (b *Broker) connLimits(cfg *config.Broker) wire.ConnLimits {
	l := wire.ConnLimits{
		MaxConnections: int(cfg.MaxConnections),
		PerIP:          int(cfg.MaxConnectionsPerIP),
		Listener:       map[string]int{},
		Protected:      cfg.InterBrokerListenerName,
	}
	for _, ln := range cfg.Listeners {
		if v, ok := cfg.ListenerOverride(ln.Name, "max.connections"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				l.Listener[ln.Name] = n
			}
		}
	}
	if len(cfg.MaxConnectionsPerIPOverrides) > 0 {
		l.PerIPOverrides = map[netip.Addr]int{}
		for host, n := range cfg.MaxConnectionsPerIPOverrides {
			addrs, err := resolveHost(host)
			if err != nil {
				b.log.Warn("max.connections.per.ip.overrides: cannot resolve host; its override does not apply", "host", host, "err", err)
				continue
			}
			for _, a := range addrs {
				l.PerIPOverrides[a] = int(n)
			}
		}
	}
	return l
}

// resolveHost returns host's addresses: itself when it is an address.
func resolveHost(host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	return addrs, err
}
