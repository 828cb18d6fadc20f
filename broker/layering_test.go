package broker

import (
	"os/exec"
	"strings"
	"testing"
)

// goListDeps returns the packages pkgs depend on (themselves included), as
// the go command computes them for a build (tests' imports excluded).
func goListDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// TestCoordinatorsDoNotCompileAgainstTheSecurityStack: the group and
// transaction coordinators, the replica manager and the controller take
// plain configs and carry their errors' Kafka codes themselves, so they
// build without the wire layer, SASL, TLS settings or JAAS (a change there
// does not rebuild them, and they cannot reach into it).
func TestCoordinatorsDoNotCompileAgainstTheSecurityStack(t *testing.T) {
	forbidden := map[string]bool{
		"kafgo/broker/wire":      true,
		"kafgo/broker/sasl":      true,
		"kafgo/internal/tlsconf": true,
		"kafgo/internal/jaas":    true,
		"kafgo/broker/config":    true,
	}
	for _, pkg := range []string{"./group", "./txn", "./replica", "./controller"} {
		for _, dep := range goListDeps(t, pkg) {
			if forbidden[dep] {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// TestKafkaerrIsALeaf: every package declares its sentinels' codes with
// kafkaerr, so kafkaerr must import nothing of kafgo.
func TestKafkaerrIsALeaf(t *testing.T) {
	for _, dep := range goListDeps(t, "./kafkaerr") {
		if strings.HasPrefix(dep, "kafgo/") && dep != "kafgo/broker/kafkaerr" {
			t.Errorf("kafkaerr depends on %s", dep)
		}
	}
}
