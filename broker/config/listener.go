package config

import (
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Listener is one NAME://host:port endpoint of listeners or
// advertised.listeners. Name is upper case (Kafka normalises listener names);
// an empty Host binds every interface; Port 0 asks the OS for a free port.
type Listener struct {
	Name string
	Host string
	Port int
}

// String formats the listener as Kafka does, bracketing IPv6 hosts.
func (l Listener) String() string {
	return l.Name + "://" + net.JoinHostPort(l.Host, strconv.Itoa(l.Port))
}

// Addr is the host:port to bind or dial.
func (l Listener) Addr() string {
	return net.JoinHostPort(l.Host, strconv.Itoa(l.Port))
}

// The security protocols Kafka knows.
var securityProtocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}

// hostname names this machine for advertised listeners whose host is
// empty, as Kafka advertises InetAddress.getLocalHost's name. A variable so
// tests can pin it.
var hostname = os.Hostname

// parseListeners parses a NAME://host:port comma list. Names must be
// unique; so must non-zero ports when distinctPorts (listeners), not for
// advertised.listeners, where two names may share a load balancer port.
func parseListeners(v string, distinctPorts bool) ([]Listener, error) {
	var out []Listener
	names := map[string]bool{}
	ports := map[int]string{}
	for _, item := range splitList(v) {
		l, err := parseListener(item)
		if err != nil {
			return nil, err
		}
		if names[l.Name] {
			return nil, fmt.Errorf("%w: listener name %s used twice; each listener needs its own name", ErrInvalidValue, l.Name)
		}
		names[l.Name] = true
		if other, dup := ports[l.Port]; dup && distinctPorts && l.Port != 0 {
			return nil, fmt.Errorf("%w: listeners %s and %s both use port %d; each listener needs its own port", ErrInvalidValue, other, l.Name, l.Port)
		}
		ports[l.Port] = l.Name
		out = append(out, l)
	}
	return out, nil
}

func parseListener(s string) (Listener, error) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return Listener{}, fmt.Errorf("%w: listener %q is not NAME://host:port", ErrInvalidValue, s)
	}
	name := strings.ToUpper(s[:i])
	if !validListenerName(name) {
		return Listener{}, fmt.Errorf("%w: listener name %q: use letters, digits, '_' and '-'", ErrInvalidValue, s[:i])
	}
	host, portStr, err := net.SplitHostPort(s[i+3:])
	if err != nil {
		return Listener{}, fmt.Errorf("%w: listener %q is not NAME://host:port", ErrInvalidValue, s)
	}
	if !validHost(host) {
		return Listener{}, fmt.Errorf("%w: listener %q: bad host %q", ErrInvalidValue, s, host)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return Listener{}, fmt.Errorf("%w: listener %q: port must be 0..65535", ErrInvalidValue, s)
	}
	return Listener{Name: name, Host: host, Port: port}, nil
}

func validListenerName(n string) bool {
	for _, r := range n {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return n != ""
}

// validHost accepts an empty host, an IP address, or a DNS-style name.
func validHost(h string) bool {
	if h == "" || net.ParseIP(h) != nil {
		return true
	}
	if strings.HasPrefix(h, "-") || strings.HasSuffix(h, "-") || strings.HasPrefix(h, ".") {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}

// listenerList is the value check of listeners and advertised.listeners.
func listenerList(v string) error {
	if len(splitList(v)) == 0 {
		return fmt.Errorf("%w: at least one listener is needed", ErrInvalidValue)
	}
	_, err := parseListeners(v, false)
	return err
}

// parseProtocolMap parses NAME:PROTOCOL pairs; protocols are matched case
// insensitively (as Kafka's SecurityProtocol.forName does) and stored in
// upper case.
func parseProtocolMap(v string) (map[string]string, error) {
	m := map[string]string{}
	for _, item := range splitList(v) {
		name, proto, ok := strings.Cut(item, ":")
		name, proto = strings.ToUpper(strings.TrimSpace(name)), strings.ToUpper(strings.TrimSpace(proto))
		if !ok || name == "" || proto == "" {
			return nil, fmt.Errorf("%w: entry %q is not LISTENER_NAME:PROTOCOL", ErrInvalidValue, item)
		}
		if !validListenerName(name) {
			return nil, fmt.Errorf("%w: entry %q: bad listener name", ErrInvalidValue, item)
		}
		known := false
		for _, p := range securityProtocols {
			known = known || p == proto
		}
		if !known {
			return nil, fmt.Errorf("%w: entry %q: unknown security protocol %s (one of %s)", ErrInvalidValue, item, proto, strings.Join(securityProtocols, ", "))
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("%w: listener %s mapped twice", ErrInvalidValue, name)
		}
		m[name] = proto
	}
	return m, nil
}

func protocolMap(v string) error {
	_, err := parseProtocolMap(v)
	return err
}

// adminAddress checks admin.listener: empty, or host:port.
func adminAddress(v string) error {
	if v == "" {
		return nil
	}
	host, portStr, err := net.SplitHostPort(v)
	if err != nil || !validHost(host) {
		return fmt.Errorf("%w: must be host:port (or empty to disable)", ErrInvalidValue)
	}
	if port, err := strconv.Atoi(portStr); err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("%w: port must be 0..65535", ErrInvalidValue)
	}
	return nil
}

// parseConnOverrides parses max.connections.per.ip.overrides, host:count
// pairs. The host part may itself be an IPv6 address, so the count is
// whatever follows the last colon.
func parseConnOverrides(v string) (map[string]int32, error) {
	m := map[string]int32{}
	for _, item := range splitList(v) {
		i := strings.LastIndex(item, ":")
		if i <= 0 {
			return nil, fmt.Errorf("%w: entry %q is not host:count", ErrInvalidValue, item)
		}
		host, countStr := strings.TrimSpace(item[:i]), strings.TrimSpace(item[i+1:])
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if !validHost(host) {
			return nil, fmt.Errorf("%w: entry %q: bad host", ErrInvalidValue, item)
		}
		n, err := strconv.ParseInt(countStr, 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: entry %q: count must be a non-negative int", ErrInvalidValue, item)
		}
		m[host] = int32(n)
	}
	return m, nil
}

func connOverrides(v string) error {
	_, err := parseConnOverrides(v)
	return err
}

// listenerNames lists the names of ls, sorted, for error messages.
func listenerNames(ls []Listener) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.Name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// resolveListeners derives Listeners, AdvertisedListeners, the protocol map
// and the inter-broker listener, applying Kafka's rules (KafkaConfig
// validateValues); resolveSecurity then checks each listener's security.
func (r *resolver) resolveListeners(b *Broker) {
	var err error
	protoRaw := r.str("listener.security.protocol.map")
	if b.ListenerSecurityProtocolMap, err = parseProtocolMap(protoRaw); err != nil {
		r.fail("listener.security.protocol.map", protoRaw, err)
		return
	}
	lraw := r.str("listeners")
	if b.Listeners, err = parseListeners(lraw, true); err != nil {
		r.fail("listeners", lraw, err)
		return
	}
	for _, l := range b.Listeners {
		if _, ok := b.ListenerSecurityProtocolMap[l.Name]; !ok {
			r.fail("listeners", lraw, fmt.Errorf("%w: no security protocol defined for listener %s in listener.security.protocol.map", ErrInvalidValue, l.Name))
			return
		}
	}

	advKey, advRaw := "advertised.listeners", r.str("advertised.listeners")
	if r.isNull("advertised.listeners") {
		advKey, advRaw = "listeners", lraw
		b.AdvertisedListeners = append([]Listener(nil), b.Listeners...)
	} else if b.AdvertisedListeners, err = parseListeners(advRaw, false); err != nil {
		r.fail(advKey, advRaw, err)
		return
	}
	known := map[string]bool{}
	for _, l := range b.Listeners {
		known[l.Name] = true
	}
	for i, l := range b.AdvertisedListeners {
		if !known[l.Name] {
			r.fail(advKey, advRaw, fmt.Errorf("%w: advertised listener %s is not one of listeners (%s)", ErrInvalidValue, l.Name, listenerNames(b.Listeners)))
			return
		}
		if ip := net.ParseIP(l.Host); ip != nil && ip.IsUnspecified() {
			r.fail(advKey, advRaw, fmt.Errorf("%w: cannot advertise the non-routable address %s; set advertised.listeners to a routable host", ErrInvalidValue, l.Host))
			return
		}
		if l.Host == "" {
			// Kafka advertises the local host name for an empty host; fall
			// back to the loopback address when the OS cannot name itself.
			h, herr := hostname()
			if herr != nil || h == "" {
				h = "127.0.0.1"
			}
			b.AdvertisedListeners[i].Host = h
		}
	}

	ibName, ibSet := r.str("inter.broker.listener.name"), !r.isNull("inter.broker.listener.name")
	ibProto := r.str("security.inter.broker.protocol")
	switch {
	case ibSet && r.isExplicit("security.inter.broker.protocol"):
		r.fail("inter.broker.listener.name", ibName, fmt.Errorf("%w: set only one of inter.broker.listener.name and security.inter.broker.protocol", ErrInvalidValue))
		return
	case ibSet:
		b.InterBrokerListenerName = strings.ToUpper(ibName)
		if _, ok := b.ListenerSecurityProtocolMap[b.InterBrokerListenerName]; !ok {
			r.fail("inter.broker.listener.name", ibName, fmt.Errorf("%w: listener %s is not in listener.security.protocol.map", ErrInvalidValue, b.InterBrokerListenerName))
			return
		}
	default:
		b.InterBrokerListenerName = ibProto
	}
	for _, l := range b.AdvertisedListeners {
		if l.Name == b.InterBrokerListenerName {
			return
		}
	}
	key, val := "inter.broker.listener.name", ibName
	if !ibSet {
		key, val = "security.inter.broker.protocol", ibProto
	}
	r.fail(key, val, fmt.Errorf("%w: inter-broker listener %s must be one of the advertised listeners (%s)", ErrInvalidValue, b.InterBrokerListenerName, listenerNames(b.AdvertisedListeners)))
}
