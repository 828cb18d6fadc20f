package configs

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestParseAddConfig(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  map[string]string
		order []string
	}{
		{"retention.ms=1000", map[string]string{"retention.ms": "1000"}, []string{"retention.ms"}},
		{"a=1,b=[x,y,z],c=3", map[string]string{"a": "1", "b": "x,y,z", "c": "3"}, []string{"a", "b", "c"}},
		{"cleanup.policy=[compact,delete]", map[string]string{"cleanup.policy": "compact,delete"}, []string{"cleanup.policy"}},
		{"a=,b=2", map[string]string{"a": "", "b": "2"}, []string{"a", "b"}},
		{"a=1,a=2", map[string]string{"a": "2"}, []string{"a"}},
		{"x=a=b", map[string]string{"x": "a=b"}, []string{"x"}},
	} {
		got, order, err := ParseAddConfig(tc.in)
		if err != nil || !maps.Equal(got, tc.want) || !slices.Equal(order, tc.order) {
			t.Errorf("ParseAddConfig(%q) = %v %v %v, want %v %v", tc.in, got, order, err, tc.want, tc.order)
		}
	}
	for _, bad := range []string{"", "novalue", "=1", "a=[1,2", "a=[1]b", ","} {
		if _, _, err := ParseAddConfig(bad); err == nil || !strings.Contains(err.Error(), `"key=val"`) {
			t.Errorf("ParseAddConfig(%q) error %v", bad, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string // "" = valid
	}{
		{"describe topic", Options{EntityType: EntityTopics, Describe: true}, ""},
		{"alter broker", Options{EntityType: EntityBrokers, EntityName: "1", NameSet: true, Alter: true, AddConfig: "a=1"}, ""},
		{"alter default", Options{EntityType: EntityBrokers, EntityDefault: true, Alter: true, DeleteConfig: []string{"a"}}, ""},
		{"no action", Options{EntityType: EntityTopics}, "exactly one action"},
		{"two actions", Options{EntityType: EntityTopics, Describe: true, Alter: true}, "exactly one action"},
		{"no type", Options{Describe: true}, "At least one entity type"},
		{"bad type", Options{EntityType: "widgets", Describe: true}, "Invalid entity type widgets"},
		{"users", Options{EntityType: "users", Describe: true}, ""},
		{"ips", Options{EntityType: "ips", Describe: true}, "not supported by kafgo"},
		{"topic default", Options{EntityType: EntityTopics, EntityDefault: true, Describe: true}, "only valid with --entity-type brokers"},
		{"broker name", Options{EntityType: EntityBrokers, EntityName: "b1", NameSet: true, Describe: true}, "valid integer broker id"},
		{"alter without name", Options{EntityType: EntityTopics, Alter: true, AddConfig: "a=1"}, "an entity name must be specified"},
		{"alter without change", Options{EntityType: EntityTopics, EntityName: "t", NameSet: true, Alter: true}, "At least one of --add-config"},
		{"add twice", Options{EntityType: EntityTopics, EntityName: "t", NameSet: true, Alter: true, AddConfig: "a=1", AddFile: "b=2"}, "Only one of --add-config"},
		{"describe with add", Options{EntityType: EntityTopics, Describe: true, AddConfig: "a=1"}, "only valid with --alter"},
		{"all with alter", Options{EntityType: EntityTopics, EntityName: "t", NameSet: true, Alter: true, AddConfig: "a=1", All: true}, "--all is only valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestShortcuts(t *testing.T) {
	var o Options
	if err := o.Shortcuts("orders", true, "", false, false); err != nil || o.EntityType != EntityTopics || o.EntityName != "orders" || !o.NameSet {
		t.Fatalf("--topic: %+v %v", o, err)
	}
	o = Options{}
	if err := o.Shortcuts("", false, "", false, true); err != nil || o.EntityType != EntityBrokers || !o.EntityDefault {
		t.Fatalf("--broker-defaults: %+v %v", o, err)
	}
	o = Options{EntityType: EntityTopics}
	if err := o.Shortcuts("", false, "1", true, false); err == nil {
		t.Fatal("--entity-type with --broker accepted")
	}
	if got := deleteKeys([]string{"a,b", " c ", ""}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("deleteKeys %v", got)
	}
}

func TestParseScramCredential(t *testing.T) {
	for _, tc := range []struct {
		value      string
		iterations int32
		password   string
		err        string
	}{
		{"iterations=8192,password=x", 8192, "x", ""},
		{"password=a,b=c", 4096, "a,b=c", ""},
		{"iterations=-1,password=p", 4096, "p", ""},
		{"iterations=100,password=p", 0, "", "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-256"},
		{"pass=x", 0, "", "Invalid credential property SCRAM-SHA-256=pass=x"},
	} {
		it, pw, err := parseScramCredential("SCRAM-SHA-256", tc.value)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || it != tc.iterations || pw != tc.password {
			t.Errorf("%q: %d %q %v", tc.value, it, pw, err)
		}
	}
}
