package dynconfig

import (
	"errors"
	"reflect"
	"testing"
)

// TestConfigFormat pins the bytes Kafka writes for an entity config (keys
// sorted, no HTML escaping) and what it reads back, numbers from a
// hand-written znode included.
func TestConfigFormat(t *testing.T) {
	for _, tc := range []struct {
		cfg  map[string]string
		want string
	}{
		{nil, `{"version":1,"config":{}}`},
		{map[string]string{"producer_byte_rate": "1048576", "SCRAM-SHA-512": "salt=a+b/c=,iterations=4096"},
			`{"version":1,"config":{"SCRAM-SHA-512":"salt=a+b/c=,iterations=4096","producer_byte_rate":"1048576"}}`},
		{map[string]string{"k": "<default>&"}, `{"version":1,"config":{"k":"<default>&"}}`},
	} {
		got, err := MarshalConfig(tc.cfg)
		if err != nil || string(got) != tc.want {
			t.Errorf("MarshalConfig(%v) = %s, %v; want %s", tc.cfg, got, err, tc.want)
			continue
		}
		back, err := ParseConfig(got)
		if err != nil || len(back) != len(tc.cfg) || (len(back) > 0 && !reflect.DeepEqual(back, tc.cfg)) {
			t.Errorf("ParseConfig(%s) = %v, %v", got, back, err)
		}
	}
	got, err := ParseConfig([]byte(`{"version":1,"config":{"consumer_byte_rate":2048,"x":null,"y":"s"},"extra":true}`))
	if err != nil || !reflect.DeepEqual(got, map[string]string{"consumer_byte_rate": "2048", "x": "", "y": "s"}) {
		t.Errorf("hand-written config = %v, %v", got, err)
	}
	for _, empty := range []string{"", "  \n"} {
		if got, err := ParseConfig([]byte(empty)); err != nil || got == nil || len(got) != 0 {
			t.Errorf("ParseConfig(%q) = %v, %v; want an empty config", empty, got, err)
		}
	}
	for _, bad := range []string{`{"config":`, `{"config":{"k":[1]}}`, `{"config":{"k":{}}}`} {
		if _, err := ParseConfig([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("ParseConfig(%q) = %v, want ErrFormat", bad, err)
		}
	}
}

func TestChangeFormat(t *testing.T) {
	got, err := MarshalChange(Users + "/" + Sanitize("CN=alice,O=x"))
	if want := `{"version":2,"entity_path":"users/CN%3Dalice%2CO%3Dx"}`; err != nil || string(got) != want {
		t.Fatalf("MarshalChange = %s, %v; want %s", got, err, want)
	}
	if _, err := MarshalChange("users"); !errors.Is(err, ErrFormat) {
		t.Fatalf("MarshalChange without a name: %v", err)
	}
	for data, want := range map[string]string{
		`{"version":2,"entity_path":"brokers/<default>"}`:                "brokers/<default>",
		`{"version":1,"entity_type":"topics","entity_name":"orders"}`:    "topics/orders",
		`{"version":2,"entity_path":"users/alice/clients/c1","extra":1}`: "users/alice/clients/c1",
	} {
		if got, err := ParseChange([]byte(data)); err != nil || got != want {
			t.Errorf("ParseChange(%s) = %q, %v; want %q", data, got, err, want)
		}
	}
	for _, bad := range []string{"", `{"version":3}`, `{"version":1,"entity_type":"topics"}`, `[`} {
		if _, err := ParseChange([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("ParseChange(%q) = %v, want ErrFormat", bad, err)
		}
	}
	if typ, name := SplitEntityPath("users/alice/clients/c1"); typ != "users" || name != "alice/clients/c1" {
		t.Errorf("SplitEntityPath = %q %q", typ, name)
	}
	for got, want := range map[string]string{
		Path(Users, Sanitize("a b")): "/config/users/a%20b",
		UserPath("a b"):              "/config/users/a%20b",
		TopicPath("orders"):          "/config/topics/orders",
		BrokerPath(DefaultEntity):    "/config/brokers/<default>",
		BrokerPath("1"):              "/config/brokers/1",
		ChangeSeqPath():              "/config/changes/config_change_",
	} {
		if got != want {
			t.Errorf("path %q, want %q", got, want)
		}
	}
}
