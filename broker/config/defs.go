package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Def describes one broker config key: its server.properties name, type,
// Kafka default and validation.
type Def struct {
	Name string
	Type Type
	// Default is the value that applies when the key is absent, spelled as
	// Kafka prints it. Meaningless when Nullable.
	Default string
	// Nullable keys have no default (Kafka's null): unset unless configured,
	// and a derived value applies instead (log.retention.ms falls back to
	// log.retention.minutes, advertised.listeners to listeners, ...).
	Nullable bool
	Doc      string
	// Validate checks a raw value: type, range and allowed values. Its
	// errors are *Error values naming the key and the value.
	Validate func(string) error
	// Dynamic keys can be changed at runtime with Set (IncrementalAlterConfigs
	// on a broker resource); the others are read-only.
	Dynamic   bool
	Sensitive bool

	checks []check
	// implemented are Java classes a class-typed key may name because
	// kafgo implements them natively (Kafka's ACL authorizer).
	implemented []string
	csv         bool // YAML may give the value as a list (joined with commas)
	kv          bool // YAML may give the value as a mapping (joined as k:v,k:v)
}

// canonical validates raw and returns the normalised value to store.
func (d *Def) canonical(raw string) (string, error) {
	v, err := canonical(d.Type, raw)
	if err == nil {
		for _, c := range d.checks {
			if err = c(v); err != nil {
				break
			}
		}
	}
	if err != nil {
		return "", keyError(d.Name, raw, err)
	}
	return v, nil
}

// BrokerDefs lists every broker key kafgo accepts, grouped as Kafka's
// sample server.properties groups them. Treat it as read-only.
var BrokerDefs []Def

// brokerIndex finds a BrokerDefs entry by name.
var brokerIndex = map[string]*Def{}

func init() {
	// The tables are split by concern across files; this is the one place
	// that turns them into BrokerDefs, so order (and hence flag help and
	// describe output) never depends on file initialisation order.
	BrokerDefs = nil
	for _, group := range [][]Def{serverDefs, socketDefs, securityDefs, logDefs, replicationDefs, quotaDefs, coordinatorDefs} {
		BrokerDefs = append(BrokerDefs, group...)
	}
	for i := range BrokerDefs {
		d := &BrokerDefs[i]
		if _, dup := brokerIndex[d.Name]; dup {
			panic("config: broker key defined twice: " + d.Name)
		}
		if d.Type == TypeClass {
			d.checks = append([]check{noJavaClass(d.Default, d.implemented...)}, d.checks...)
		}
		if d.Type == TypeList {
			d.csv = true
		}
		d.Validate = func(v string) error {
			_, err := d.canonical(v)
			return err
		}
		brokerIndex[d.Name] = d
	}
	initTopicDefs()
}

// BrokerNames returns every broker key, sorted.
func BrokerNames() []string {
	names := make([]string, 0, len(BrokerDefs))
	for _, d := range BrokerDefs {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names
}

// LookupDef returns the definition of a broker key, including listener
// overrides (listener.name.<listener>.<key>).
func LookupDef(name string) (Def, bool) {
	d, ok := lookupDef(name)
	if !ok {
		return Def{}, false
	}
	return *d, true
}

// noJavaClass accepts a class-typed key only when it is empty or names the
// class Kafka uses by default, or one kafgo implements natively: kafgo
// cannot load Java plugins, and silently ignoring one (an authorizer above
// all) would change what the broker does behind the operator's back.
func noJavaClass(def string, implemented ...string) check {
	return func(v string) error {
		if v == "" || v == def {
			return nil
		}
		for _, c := range implemented {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("%w: Java plugin classes cannot be loaded; remove the key or leave it empty", ErrUnsupported)
	}
}

var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?(-IV[0-9]+)?$`)

// kafkaVersion accepts the version strings inter.broker.protocol.version
// and log.message.format.version take ("2.8", "2.8-IV1", "0.10.2"). kafgo
// always writes RecordBatch v2 and speaks its own API versions, so the value
// is accepted for compatibility and reported back, nothing more.
func kafkaVersion(v string) error {
	if !versionPattern.MatchString(v) {
		return fmt.Errorf("%w: not a Kafka version such as 2.8 or 2.8-IV1", ErrInvalidValue)
	}
	return nil
}

// onlyFalse accepts a boolean key only when it is false: the feature it
// turns on is not implemented.
func onlyFalse(v string) error {
	if v == "true" {
		return fmt.Errorf("%w: only false is accepted", ErrUnsupported)
	}
	return nil
}

// compressionTypes are the broker-side codec names (Kafka's
// BrokerCompressionType). "none" is a producer setting, not one of them:
// Kafka refuses it here, and so do we, pointing at the right spelling.
var compressionTypes = []string{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}

func compressionType(v string) error {
	if v == "none" {
		return fmt.Errorf("%w: \"none\" is a producer setting; the broker value is \"uncompressed\"", ErrInvalidValue)
	}
	return oneOf(compressionTypes...)(v)
}

// brokerCompressionType is compressionType for the broker key, which Kafka
// compares case-insensitively (the topic key is case sensitive).
func brokerCompressionType(v string) error {
	return compressionType(strings.ToLower(v))
}
