package main

import (
	"bytes"
	"strings"
	"testing"
)

// kafgo broker serve takes server.properties as kafka-server-start.sh does
// (the file as the argument, --override after it); --check-config prints
// the start-up report without starting.
func TestBrokerServeCheckConfig(t *testing.T) {
	run := func(args ...string) (string, error) {
		cmd := newBrokerServeCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("../../testdata/kafka-2.8/config/server.properties", "--override", "broker.id=3", "--check-config")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"configuration valid: broker.id 3, log.dirs /tmp/kafka-logs, zookeeper.connect localhost:2181",
		`num.io.threads="8" (../../testdata/kafka-2.8/config/server.properties:45): no effect: `} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run("../../testdata/kafka-2.8/config/kraft/broker.properties", "--check-config"); err == nil || !strings.Contains(err.Error(), "process.roles") {
		t.Errorf("KRaft broker config: %v", err)
	}
	if _, err := run("a.properties", "--config", "b.yaml", "--check-config"); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("two config files: %v", err)
	}
}
