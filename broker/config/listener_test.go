package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseListeners(t *testing.T) {
	tests := []struct {
		in   string
		want []Listener
		str  string
	}{
		{"PLAINTEXT://127.0.0.1:9092", []Listener{{"PLAINTEXT", "127.0.0.1", 9092}}, "PLAINTEXT://127.0.0.1:9092"},
		{"plaintext://:9092", []Listener{{"PLAINTEXT", "", 9092}}, "PLAINTEXT://:9092"},
		{"PLAINTEXT://[::1]:9092", []Listener{{"PLAINTEXT", "::1", 9092}}, "PLAINTEXT://[::1]:9092"},
		{"INTERNAL://host-a.example:9092, EXTERNAL://0.0.0.0:9093",
			[]Listener{{"INTERNAL", "host-a.example", 9092}, {"EXTERNAL", "0.0.0.0", 9093}},
			"INTERNAL://host-a.example:9092,EXTERNAL://0.0.0.0:9093"},
		{"A://:0,B://:0", []Listener{{"A", "", 0}, {"B", "", 0}}, "A://:0,B://:0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseListeners(tt.in, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
			var parts []string
			for _, l := range got {
				parts = append(parts, l.String())
			}
			if s := strings.Join(parts, ","); s != tt.str {
				t.Errorf("String() = %q, want %q", s, tt.str)
			}
		})
	}
	if addr := (Listener{"PLAINTEXT", "::1", 9092}).Addr(); addr != "[::1]:9092" {
		t.Errorf("Addr = %q", addr)
	}
}

func TestListenerErrors(t *testing.T) {
	tests := []struct {
		name     string
		values   map[string]string
		key      string
		contains string
		sentinel error
	}{
		{"no scheme", map[string]string{"listeners": "127.0.0.1:9092"}, "listeners", "NAME://host:port", ErrInvalidValue},
		{"no port", map[string]string{"listeners": "PLAINTEXT://localhost"}, "listeners", "NAME://host:port", ErrInvalidValue},
		{"port range", map[string]string{"listeners": "PLAINTEXT://:65536"}, "listeners", "0..65535", ErrInvalidValue},
		{"negative port", map[string]string{"listeners": "PLAINTEXT://:-1"}, "listeners", "0..65535", ErrInvalidValue},
		{"bad host", map[string]string{"listeners": "PLAINTEXT://bad host:1"}, "listeners", "bad host", ErrInvalidValue},
		{"empty", map[string]string{"listeners": ""}, "listeners", "at least one", ErrInvalidValue},
		{"duplicate name", map[string]string{"listeners": "PLAINTEXT://:9092,plaintext://:9093"}, "listeners", "used twice", ErrInvalidValue},
		{"duplicate port", map[string]string{
			"listeners": "A://:9092,B://:9092", "listener.security.protocol.map": "A:PLAINTEXT,B:PLAINTEXT", "inter.broker.listener.name": "A"},
			"listeners", "port 9092", ErrInvalidValue},
		{"SSL without a key store", map[string]string{"listeners": "PLAINTEXT://:9092,SSL://:9093"}, "listener.name.ssl.ssl.keystore.location", "needs a key store", ErrInvalidValue},
		{"SASL with GSSAPI", map[string]string{"listeners": "SASL_PLAINTEXT://:9092", "inter.broker.listener.name": "SASL_PLAINTEXT"}, "sasl.enabled.mechanisms", "GSSAPI/Kerberos", ErrUnsupported},
		{"mapped name to SSL without a key store", map[string]string{
			"listeners": "PLAINTEXT://:9092,CLIENT://:9093", "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CLIENT:SSL"},
			"listener.name.client.ssl.keystore.location", "listener CLIENT uses SSL", ErrInvalidValue},
		{"unmapped name", map[string]string{"listeners": "PLAINTEXT://:9092,CLIENT://:9093"}, "listeners", "no security protocol defined for listener CLIENT", ErrInvalidValue},
		{"unknown protocol", map[string]string{"listener.security.protocol.map": "PLAINTEXT:TLS"}, "listener.security.protocol.map", "unknown security protocol TLS", ErrInvalidValue},
		{"bad map entry", map[string]string{"listener.security.protocol.map": "PLAINTEXT"}, "listener.security.protocol.map", "LISTENER_NAME:PROTOCOL", ErrInvalidValue},
		{"advertised not in listeners", map[string]string{"advertised.listeners": "OTHER://h:1"}, "advertised.listeners", "not one of listeners", ErrInvalidValue},
		{"advertised 0.0.0.0", map[string]string{"advertised.listeners": "PLAINTEXT://0.0.0.0:9092"}, "advertised.listeners", "non-routable", ErrInvalidValue},
		{"listeners 0.0.0.0 without advertised", map[string]string{"listeners": "PLAINTEXT://0.0.0.0:9092"}, "listeners", "non-routable", ErrInvalidValue},
		{"advertised ::", map[string]string{"advertised.listeners": "PLAINTEXT://[::]:9092"}, "advertised.listeners", "non-routable", ErrInvalidValue},
		{"no inter-broker listener", map[string]string{
			"listeners": "CLIENT://:9092", "listener.security.protocol.map": "CLIENT:PLAINTEXT"},
			"security.inter.broker.protocol", "inter-broker listener PLAINTEXT", ErrInvalidValue},
		{"inter-broker name not advertised", map[string]string{
			"listeners": "A://:9092,B://:9093", "advertised.listeners": "A://h:9092",
			"listener.security.protocol.map": "A:PLAINTEXT,B:PLAINTEXT", "inter.broker.listener.name": "B"},
			"inter.broker.listener.name", "must be one of the advertised listeners", ErrInvalidValue},
		{"inter-broker name unmapped", map[string]string{"inter.broker.listener.name": "NOPE"}, "inter.broker.listener.name", "not in listener.security.protocol.map", ErrInvalidValue},
		{"both inter-broker settings", map[string]string{
			"inter.broker.listener.name": "PLAINTEXT", "security.inter.broker.protocol": "PLAINTEXT"},
			"inter.broker.listener.name", "only one of", ErrInvalidValue},
		{"inter-broker SSL without an SSL listener", map[string]string{"security.inter.broker.protocol": "SSL"}, "security.inter.broker.protocol", "must be one of the advertised listeners", ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.values)
			ce := wantKeyError(t, err, tt.key, "", tt.sentinel)
			if !strings.Contains(ce.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", ce, tt.contains)
			}
		})
	}
}

func TestNamedListeners(t *testing.T) {
	b := mustParse(t, map[string]string{
		"listeners":                      "INTERNAL://10.0.0.5:9092,EXTERNAL://:9093",
		"advertised.listeners":           "INTERNAL://10.0.0.5:9092,EXTERNAL://kafka.example.com:443",
		"listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
		"inter.broker.listener.name":     "internal",
	})
	if b.InterBrokerListenerName != "INTERNAL" {
		t.Errorf("inter-broker listener %q", b.InterBrokerListenerName)
	}
	want := []Listener{{"INTERNAL", "10.0.0.5", 9092}, {"EXTERNAL", "kafka.example.com", 443}}
	if !reflect.DeepEqual(b.AdvertisedListeners, want) {
		t.Errorf("advertised %v", b.AdvertisedListeners)
	}
	if b.Listeners[1].Host != "" {
		t.Errorf("bind host %q, want empty (all interfaces)", b.Listeners[1].Host)
	}
}

func TestAdvertisedHostFallback(t *testing.T) {
	saved := hostname
	defer func() { hostname = saved }()
	hostname = func() (string, error) { return "", errors.New("no name") }
	b := mustParse(t, map[string]string{"listeners": "PLAINTEXT://:9092"})
	if got := b.AdvertisedListeners[0].Host; got != "127.0.0.1" {
		t.Errorf("advertised host %q, want 127.0.0.1 when the OS has no name", got)
	}
}
