package znode

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Endpoint is one listener of a broker, written as "NAME://host:port" in
// /brokers/ids/<id> "endpoints", with its security protocol in
// "listener_security_protocol_map".
type Endpoint struct {
	Listener         string // listener name, e.g. PLAINTEXT, INTERNAL
	Host             string // "" for all interfaces
	Port             int32
	SecurityProtocol string // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
}

// String is Kafka's connection string: NAME://host:port, IPv6 hosts in
// brackets.
func (e Endpoint) String() string {
	host := e.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return e.Listener + "://" + host + ":" + strconv.Itoa(int(e.Port))
}

// ParseEndpoint parses "NAME://host:port". SecurityProtocol is left empty:
// it comes from the listener map.
func ParseEndpoint(s string) (Endpoint, error) {
	name, hostport, ok := strings.Cut(s, "://")
	if !ok || name == "" {
		return Endpoint{}, fmt.Errorf("znode: endpoint %q: want NAME://host:port", s)
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return Endpoint{}, fmt.Errorf("znode: endpoint %q: %w", s, err)
	}
	p, err := strconv.ParseInt(port, 10, 32)
	if err != nil || p < 0 || p > 65535 {
		return Endpoint{}, fmt.Errorf("znode: endpoint %q: bad port", s)
	}
	return Endpoint{Listener: name, Host: host, Port: int32(p)}, nil
}

// SupportedFeature is a feature version range in a version 5 registration
// (KIP-584), written as {"min_version":m,"max_version":M}.
type SupportedFeature struct {
	MinVersion int16
	MaxVersion int16
}

// BrokerInfo is /brokers/ids/<id>, the ephemeral broker registration.
// Version 4 (Kafka 0.10.1 to 2.6) is the default; version 5 (2.7+) adds
// "features". Marshal writes, in Kafka's field order:
//
//	v4 {"listener_security_protocol_map":{..},"endpoints":[..],"jmx_port":-1,
//	    "host":"h","timestamp":"ms","port":9092,"version":4[,"rack":"r"]}
//	v5 {"features":{..},"listener_security_protocol_map":{..},"endpoints":[..],
//	    "jmx_port":-1,"port":9092,"host":"h","version":5,"timestamp":"ms"[,"rack":"r"]}
type BrokerInfo struct {
	Version   int        // 4 or 5; 0 means 4
	Endpoints []Endpoint // in listener order; the map is written in this order too
	JMXPort   int32      // -1 when JMX is off
	Timestamp string     // registration time, ms since the epoch, decimal
	Rack      string     // broker.rack; omitted when empty
	Features  map[string]SupportedFeature

	// Host and Port are the legacy fields: the first endpoint whose
	// security protocol is PLAINTEXT, or ""/-1 without one. Marshal derives
	// them from Endpoints; Unmarshal fills them as read.
	Host string
	Port int32
}

// NewBrokerInfo is a version 4 registration stamped now, without JMX.
func NewBrokerInfo(endpoints []Endpoint, rack string, now time.Time) BrokerInfo {
	return BrokerInfo{Version: 4, Endpoints: endpoints, JMXPort: -1, Rack: rack, Timestamp: Timestamp(now)}
}

// Timestamp formats t as Kafka's znode timestamps: ms since the epoch, decimal.
func Timestamp(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

var knownProtocols = map[string]bool{"PLAINTEXT": true, "SSL": true, "SASL_PLAINTEXT": true, "SASL_SSL": true}

// Marshal encodes the registration (see the type comment).
func (b BrokerInfo) Marshal() ([]byte, error) {
	version := b.Version
	if version == 0 {
		version = 4
	}
	if version != 4 && version != 5 {
		return nil, marshalErr("broker registration", fmt.Errorf("version %d: kafgo writes 4 or 5", version))
	}
	var lspm object
	eps := make([]string, 0, len(b.Endpoints))
	host, port := "", int32(-1)
	havePlain := false
	seen := map[string]bool{}
	for _, e := range b.Endpoints {
		proto := e.SecurityProtocol
		if proto == "" && knownProtocols[e.Listener] {
			proto = e.Listener
		}
		if !knownProtocols[proto] {
			return nil, marshalErr("broker registration", fmt.Errorf("listener %s: unknown security protocol %q", e.Listener, proto))
		}
		if seen[e.Listener] {
			return nil, marshalErr("broker registration", fmt.Errorf("listener %s listed twice", e.Listener))
		}
		seen[e.Listener] = true
		lspm.field(e.Listener, proto)
		eps = append(eps, e.String())
		if proto == "PLAINTEXT" && !havePlain {
			host, port, havePlain = e.Host, e.Port, true
		}
	}
	lspmBytes, err := lspm.bytes()
	if err != nil {
		return nil, marshalErr("broker registration", err)
	}
	var hostVal any // JSON null without a PLAINTEXT endpoint
	if havePlain {
		hostVal = host
	}
	var o object
	if version == 5 {
		feats, err := featuresJSON(b.Features)
		if err != nil {
			return nil, marshalErr("broker registration", err)
		}
		o.raw("features", feats)
		o.raw("listener_security_protocol_map", lspmBytes)
		o.field("endpoints", eps)
		o.field("jmx_port", b.JMXPort)
		o.field("port", port)
		o.field("host", hostVal)
		o.field("version", version)
		o.field("timestamp", b.Timestamp)
	} else {
		o.raw("listener_security_protocol_map", lspmBytes)
		o.field("endpoints", eps)
		o.field("jmx_port", b.JMXPort)
		o.field("host", hostVal)
		o.field("timestamp", b.Timestamp)
		o.field("port", port)
		o.field("version", version)
	}
	if b.Rack != "" {
		o.field("rack", b.Rack)
	}
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr("broker registration", err)
	}
	return out, nil
}

func featuresJSON(f map[string]SupportedFeature) ([]byte, error) {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	var o object
	for _, n := range names {
		var r object
		r.field("min_version", f[n].MinVersion)
		r.field("max_version", f[n].MaxVersion)
		rb, err := r.bytes()
		if err != nil {
			return nil, err
		}
		o.raw(n, rb)
	}
	return o.bytes()
}

// Unmarshal decodes any registration version (1 to 5): endpoints come from
// "endpoints" with protocols from the listener map, or for the oldest
// versions from host/port as one PLAINTEXT endpoint.
func (b *BrokerInfo) Unmarshal(data []byte) error {
	var v struct {
		Version   int               `json:"version"`
		Host      *string           `json:"host"`
		Port      *int32            `json:"port"`
		JMXPort   *int32            `json:"jmx_port"`
		Timestamp flexString        `json:"timestamp"`
		Endpoints []string          `json:"endpoints"`
		LSPM      map[string]string `json:"listener_security_protocol_map"`
		Rack      *string           `json:"rack"`
		Features  map[string]struct {
			Min int16 `json:"min_version"`
			Max int16 `json:"max_version"`
		} `json:"features"`
	}
	const what = "/brokers/ids/<id>"
	if err := decode(what, data, &v); err != nil {
		return err
	}
	out := BrokerInfo{Version: v.Version, JMXPort: -1, Port: -1, Timestamp: string(v.Timestamp)}
	if v.Host != nil {
		out.Host = *v.Host
	}
	if v.Port != nil {
		out.Port = *v.Port
	}
	if v.JMXPort != nil {
		out.JMXPort = *v.JMXPort
	}
	if v.Rack != nil {
		out.Rack = *v.Rack
	}
	for _, s := range v.Endpoints {
		e, err := ParseEndpoint(s)
		if err != nil {
			return parseErr(what, "%v", err)
		}
		e.SecurityProtocol = e.Listener // before listener names (KIP-103)
		if p, ok := v.LSPM[e.Listener]; ok {
			e.SecurityProtocol = p
		}
		out.Endpoints = append(out.Endpoints, e)
	}
	if len(v.Endpoints) == 0 && v.Host != nil && out.Port >= 0 {
		out.Endpoints = []Endpoint{{Listener: "PLAINTEXT", Host: out.Host, Port: out.Port, SecurityProtocol: "PLAINTEXT"}}
	}
	if len(out.Endpoints) == 0 {
		return parseErr(what, "no endpoints in %s", data)
	}
	if v.Features != nil {
		out.Features = make(map[string]SupportedFeature, len(v.Features))
		for n, r := range v.Features {
			out.Features[n] = SupportedFeature{MinVersion: r.Min, MaxVersion: r.Max}
		}
	}
	*b = out
	return nil
}

// ParseBrokerInfo decodes /brokers/ids/<id>.
func ParseBrokerInfo(data []byte) (BrokerInfo, error) {
	var b BrokerInfo
	err := b.Unmarshal(data)
	return b, err
}

// Endpoint returns the endpoint of the named listener.
func (b BrokerInfo) Endpoint(listener string) (Endpoint, bool) {
	for _, e := range b.Endpoints {
		if e.Listener == listener {
			return e, true
		}
	}
	return Endpoint{}, false
}
