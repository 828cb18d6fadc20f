package config

import (
	"reflect"
	"testing"
)

func TestValuesDescribeBroker(t *testing.T) {
	b := mustParse(t, map[string]string{
		"log.retention.ms":      "1000",
		"num.partitions":        "4",
		"ssl.keystore.password": "secret",
		"log.flush.interval.ms": "10",
	})
	values := b.Values()
	if len(values) != len(BrokerDefs) {
		t.Fatalf("%d values for %d keys", len(values), len(BrokerDefs))
	}
	byName := map[string]Value{}
	for i, v := range values {
		if i > 0 && values[i-1].Name >= v.Name {
			t.Fatalf("not sorted at %s", v.Name)
		}
		byName[v.Name] = v
	}
	tests := []struct {
		name     string
		value    string
		null     bool
		source   Source
		readOnly bool
		synonyms []Synonym
	}{
		{"num.partitions", "4", false, StaticBrokerConfig, true, []Synonym{
			{"num.partitions", "4", StaticBrokerConfig}, {"num.partitions", "1", DefaultConfig}}},
		{"broker.id", "0", false, DefaultConfig, true, []Synonym{{"broker.id", "-1", DefaultConfig}}},
		// The key that wins lists the lower-precedence spellings after it.
		{"log.retention.ms", "1000", false, StaticBrokerConfig, false, []Synonym{
			{"log.retention.ms", "1000", StaticBrokerConfig}, {"log.retention.hours", "168", DefaultConfig}}},
		// A lower-precedence spelling describes itself only, as Kafka does.
		{"log.retention.hours", "168", false, DefaultConfig, false, []Synonym{{"log.retention.hours", "168", DefaultConfig}}},
		{"log.retention.minutes", "", true, DefaultConfig, false, nil},
		{"log.flush.interval.ms", "10", false, StaticBrokerConfig, false, []Synonym{
			{"log.flush.interval.ms", "10", StaticBrokerConfig},
			{"log.flush.scheduler.interval.ms", "9223372036854775807", DefaultConfig}}},
		{"advertised.listeners", "", true, DefaultConfig, true, nil},
		{"ssl.keystore.password", "", true, StaticBrokerConfig, true, []Synonym{{"ssl.keystore.password", "", StaticBrokerConfig}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := byName[tt.name]
			if v.Value != tt.value || v.Null != tt.null || v.Source != tt.source || v.ReadOnly != tt.readOnly {
				t.Errorf("got value %q null %v source %v read-only %v, want %q %v %v %v",
					v.Value, v.Null, v.Source, v.ReadOnly, tt.value, tt.null, tt.source, tt.readOnly)
			}
			if !reflect.DeepEqual(v.Synonyms, tt.synonyms) {
				t.Errorf("synonyms %v, want %v", v.Synonyms, tt.synonyms)
			}
		})
	}
	if pw := byName["ssl.keystore.password"]; !pw.Sensitive || pw.Type != "password" || pw.ConfigType != TypePassword {
		t.Errorf("password entry %+v", pw)
	}
	if _, ok := b.Describe("no.such.key"); ok {
		t.Error("Describe of an unknown key succeeded")
	}
}

func TestSourceAndTypeNames(t *testing.T) {
	sources := map[Source]string{
		DynamicTopicConfig: "DYNAMIC_TOPIC_CONFIG", DynamicBrokerConfig: "DYNAMIC_BROKER_CONFIG",
		DynamicDefaultBrokerConfig: "DYNAMIC_DEFAULT_BROKER_CONFIG", StaticBrokerConfig: "STATIC_BROKER_CONFIG",
		DefaultConfig: "DEFAULT_CONFIG", SourceUnknown: "UNKNOWN",
	}
	for s, want := range sources {
		t.Run(want, func(t *testing.T) {
			if s.String() != want {
				t.Errorf("%d: %q", s, s.String())
			}
		})
	}
	// Wire codes of DescribeConfigs (config_source, config_type).
	if DefaultConfig != 5 || StaticBrokerConfig != 4 || DynamicTopicConfig != 1 || TypePassword != 9 || TypeList != 7 || TypeBoolean != 1 {
		t.Error("wire codes changed")
	}
	for typ, want := range map[Type]string{TypeInt: "int", TypeLong: "long", TypeShort: "short", TypeDouble: "double",
		TypeBoolean: "boolean", TypeString: "string", TypeList: "list", TypeClass: "class", TypePassword: "password", TypeUnknown: "unknown"} {
		if typ.String() != want {
			t.Errorf("Type %d: %q, want %q", typ, typ.String(), want)
		}
	}
}
