package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func parseFlags(t *testing.T, args ...string) (*FlagValues, *pflag.FlagSet) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fv := RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("Parse(%v): %v", args, err)
	}
	return fv, fs
}

func TestFlagsRegistered(t *testing.T) {
	_, fs := parseFlags(t)
	for _, d := range BrokerDefs {
		f := fs.Lookup(d.Name)
		if f == nil {
			t.Errorf("no --%s flag", d.Name)
			continue
		}
		if !d.Nullable && !d.Sensitive && f.DefValue != d.Default {
			t.Errorf("--%s help default %q, want %q", d.Name, f.DefValue, d.Default)
		}
	}
	if fs.Lookup(OverrideFlag) == nil {
		t.Error("no --override flag")
	}
	usage := fs.FlagUsages()
	for _, want := range []string{"--log.segment.bytes int", "(default 1073741824)", "--delete.topic.enable ", "--override stringArray"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}

func TestFlagOverrides(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]string
	}{
		{"nothing set", nil, map[string]string{}},
		{"typed flags", []string{"--num.partitions=4", "--log.dirs", "/x,/y"},
			map[string]string{"num.partitions": "4", "log.dirs": "/x,/y"}},
		{"bare boolean", []string{"--delete.topic.enable"}, map[string]string{"delete.topic.enable": "true"}},
		{"boolean false", []string{"--delete.topic.enable=false"}, map[string]string{"delete.topic.enable": "false"}},
		{"override with commas and equals", []string{"--override", "listeners=PLAINTEXT://:1,OTHER://:2",
			"--override", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"},
			map[string]string{"listeners": "PLAINTEXT://:1,OTHER://:2", "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"}},
		{"flag at its default still counts as set", []string{"--num.partitions=1"}, map[string]string{"num.partitions": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fv, _ := parseFlags(t, tt.args...)
			got, err := fv.Overrides()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFlagOverrideErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		key      string
		origin   string
		sentinel error
	}{
		{"bad typed value", []string{"--num.partitions=zero"}, "num.partitions", "--num.partitions", ErrInvalidValue},
		{"bad override value", []string{"--override", "num.partitions=0"}, "num.partitions", "--override", ErrInvalidValue},
		{"unknown override key", []string{"--override", "num.partitons=2"}, "num.partitons", "--override", ErrUnknownKey},
		{"override without =", []string{"--override", "num.partitions"}, "num.partitions", "--override", ErrInvalidValue},
		{"flag and override", []string{"--num.partitions=2", "--override", "num.partitions=3"}, "num.partitions", "--override", ErrDuplicateKey},
		{"override twice", []string{"--override", "broker.id=1", "--override", "broker.id=2"}, "broker.id", "--override", ErrDuplicateKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fv, _ := parseFlags(t, tt.args...)
			_, err := fv.Overrides()
			ce := wantKeyError(t, err, tt.key, "", tt.sentinel)
			if ce.Origin != tt.origin || !strings.Contains(ce.Error(), tt.origin+": ") {
				t.Errorf("origin %q (%v), want %q", ce.Origin, ce, tt.origin)
			}
		})
	}
}

// TestFlagsMergeOverFile is the `kafgo broker serve --config f --x=y` path:
// flags and --override win over the file, the rest of the file stays.
func TestFlagsMergeOverFile(t *testing.T) {
	path := writeFile(t, "broker.id: 2\nnum.partitions: 3\nlog.dirs: /file\nlog.retention.hours: 10\n")
	fv, _ := parseFlags(t, "--num.partitions=8", "--override", "log.retention.ms=1000")
	ov, err := fv.Overrides()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(path, ov)
	if err != nil {
		t.Fatal(err)
	}
	if b.BrokerID != 2 || b.NumPartitions != 8 || b.LogDirs[0] != "/file" || b.LogRetentionMs != 1000 {
		t.Errorf("broker.id=%d num.partitions=%d log.dirs=%v retention=%d", b.BrokerID, b.NumPartitions, b.LogDirs, b.LogRetentionMs)
	}
}
