package acls

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

// harness runs the tool against a kfake cluster (which keeps ACLs and
// answers the ACL APIs as a broker does) and returns what it printed.
type harness struct {
	t     *testing.T
	addrs string
}

func newHarness(t *testing.T, opts ...kfake.Opt) *harness {
	_, addrs := clitest.Cluster(t, opts...)
	return &harness{t: t, addrs: addrs}
}

func (h *harness) run(o Options, stdin string) (string, error) {
	h.t.Helper()
	var out bytes.Buffer
	cl := clitest.Client(h.t, h.addrs)
	err := Run(clitest.Context(h.t, 30*time.Second), cl, o, strings.NewReader(stdin), &out)
	return out.String(), err
}

func (h *harness) mustRun(o Options) string {
	h.t.Helper()
	out, err := h.run(o, "")
	if err != nil {
		h.t.Fatalf("%+v: %v\n%s", o, err, out)
	}
	return out
}

const aliceWriteT = "\t(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)"

// TestAddListRemoveOutput pins AclCommand's exact text for a round trip.
func TestAddListRemoveOutput(t *testing.T) {
	h := newHarness(t)
	pattern := "`ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`"
	got := h.mustRun(Options{Add: true, AllowPrincipals: []string{"User:alice"}, Operations: []string{"Write"}, Topics: []string{"t"}})
	want := "Adding ACLs for resource " + pattern + ": \n " + aliceWriteT + " \n\n" +
		"Current ACLs for resource " + pattern + ": \n " + aliceWriteT + " \n\n"
	if got != want {
		t.Fatalf("add:\n got %q\nwant %q", got, want)
	}
	if got := h.mustRun(Options{List: true, Topics: []string{"t"}}); got != "Current ACLs for resource "+pattern+": \n "+aliceWriteT+" \n\n" {
		t.Fatalf("list --topic t: %q", got)
	}
	if got := h.mustRun(Options{List: true, ListPrincipals: []string{"User:alice"}}); got != "ACLs for principal `User:alice`\nCurrent ACLs for resource "+pattern+": \n "+aliceWriteT+" \n\n" {
		t.Fatalf("list --principal: %q", got)
	}
	if got := h.mustRun(Options{List: true, ListPrincipals: []string{"User:bob"}}); got != "ACLs for principal `User:bob`\n" {
		t.Fatalf("list --principal User:bob: %q", got)
	}

	// Without --force the tool asks; "n" keeps the ACL.
	out, err := h.run(Options{Remove: true, AllowPrincipals: []string{"User:alice"}, Operations: []string{"Write"}, Topics: []string{"t"}}, "n\n")
	if err != nil {
		t.Fatal(err)
	}
	prompt := "Are you sure you want to remove ACLs: \n " + aliceWriteT + " \n from resource filter " + pattern + "? (y/n)\n"
	if out != prompt+"Current ACLs for resource "+pattern+": \n "+aliceWriteT+" \n\n" {
		t.Fatalf("remove answered n: %q", out)
	}
	if got := h.mustRun(Options{Remove: true, Force: true, AllowPrincipals: []string{"User:alice"}, Operations: []string{"Write"}, Topics: []string{"t"}}); got != "" {
		t.Fatalf("remove --force printed %q", got)
	}
	if got := h.mustRun(Options{List: true}); got != "" {
		t.Fatalf("list after remove: %q", got)
	}
}

// TestConveniences checks --producer (with --idempotent and a
// transactional id) and --consumer expand as AclCommand does.
func TestConveniences(t *testing.T) {
	h := newHarness(t)
	got := h.mustRun(Options{Add: true, Producer: true, Idempotent: true, AllowPrincipals: []string{"User:p"}, Topics: []string{"t"}, TransactionalIDs: []string{"tx"}})
	p := func(op string) string {
		return "\t(principal=User:p, host=*, operation=" + op + ", permissionType=ALLOW)"
	}
	for _, want := range []string{
		"Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`: \n " + p("WRITE") + "\n" + p("DESCRIBE") + "\n" + p("CREATE") + " \n\n",
		"Adding ACLs for resource `ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx, patternType=LITERAL)`: \n " + p("WRITE") + "\n" + p("DESCRIBE") + " \n\n",
		"Adding ACLs for resource `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)`: \n " + p("IDEMPOTENT_WRITE") + " \n\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("producer output lacks %q:\n%s", want, got)
		}
	}
	got = h.mustRun(Options{Add: true, Consumer: true, AllowPrincipals: []string{"User:c"}, AllowHosts: []string{"10.0.0.1"}, Topics: []string{"orders-"}, Groups: []string{"g"}, PatternType: "PREFIXED"})
	c := func(op string) string {
		return "\t(principal=User:c, host=10.0.0.1, operation=" + op + ", permissionType=ALLOW)"
	}
	for _, want := range []string{
		"Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders-, patternType=PREFIXED)`: \n " + c("READ") + "\n" + c("DESCRIBE") + " \n\n",
		"Adding ACLs for resource `ResourcePattern(resourceType=GROUP, name=g, patternType=PREFIXED)`: \n " + c("READ") + " \n\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("consumer output lacks %q:\n%s", want, got)
		}
	}
}

// TestRemoveAllOfResource: --remove without principals deletes every ACL
// of the resource after asking.
func TestRemoveAllOfResource(t *testing.T) {
	h := newHarness(t)
	h.mustRun(Options{Add: true, AllowPrincipals: []string{"User:a", "User:b"}, DenyPrincipals: []string{"User:c"}, Topics: []string{"t"}})
	out, err := h.run(Options{Remove: true, Topics: []string{"t"}}, "y\n")
	if err != nil {
		t.Fatal(err)
	}
	if out != "Are you sure you want to delete all ACLs for resource filter `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`? (y/n)\n" {
		t.Fatalf("remove all: %q", out)
	}
	if got := h.mustRun(Options{List: true}); got != "" {
		t.Fatalf("left: %q", got)
	}
}

// TestUsageErrors are AclCommand's argument checks.
func TestUsageErrors(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		o    Options
		want string
	}{
		{Options{}, "Command must include exactly one action: --list, --add, --remove. "},
		{Options{Add: true, List: true}, "Command must include exactly one action"},
		{Options{List: true, AllowPrincipals: []string{"User:a"}}, `Option "[list]" can't be used with option "[allow-principal]"`},
		{Options{Add: true, Producer: true, Operations: []string{"Read"}, Topics: []string{"t"}}, `Option "[producer]" can't be used with option "[operation]"`},
		{Options{Add: true, Producer: true}, "With --producer you must specify a --topic"},
		{Options{Add: true, Idempotent: true, Topics: []string{"t"}}, "The --idempotent option is only available if --producer is set"},
		{Options{Add: true, Consumer: true, Topics: []string{"t"}}, "With --consumer you must specify a --topic and a --group"},
		{Options{Add: true, ListPrincipals: []string{"User:a"}, Topics: []string{"t"}}, "The --principal option is only available if --list is set"},
		{Options{Add: true, AllowPrincipals: []string{"User:a"}}, "You must provide at least one resource"},
		{Options{Add: true, Topics: []string{"t"}}, "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."},
		{Options{Add: true, AllowPrincipals: []string{"User:a"}, Topics: []string{"t"}, PatternType: "match"}, "A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls."},
		{Options{List: true, PatternType: "regex"}, "Unknown resource-pattern-type: regex"},
		{Options{Add: true, AllowPrincipals: []string{"User:a"}, Groups: []string{"g"}, Operations: []string{"Write"}}, "ResourceType GROUP only supports operations Read, Describe, Delete, All"},
		{Options{Add: true, AllowPrincipals: []string{"User:a"}, Topics: []string{"t"}, Operations: []string{"Frobnicate"}}, "ResourceType TOPIC only supports operations"},
		{Options{Add: true, AllowPrincipals: []string{"alice"}, Topics: []string{"t"}}, "expected a string in format principalType:principalName but got alice"},
	}
	for _, tc := range cases {
		out, err := h.run(tc.o, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
		var ce *cliutil.CommandError
		if errors.As(err, &ce) {
			t.Errorf("%+v: a usage error reported as a command failure (%q)", tc.o, out)
		}
	}
}

// TestCommandFailure: a broker refusal is printed as AclCommand prints it.
func TestCommandFailure(t *testing.T) {
	h := newHarness(t, kfake.EnableACLs()) // and no super user: nobody may alter ACLs
	out, err := h.run(Options{Add: true, AllowPrincipals: []string{"User:a"}, Topics: []string{"t"}}, "")
	var ce *cliutil.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("err %v", err)
	}
	if !strings.HasSuffix(out, "Error while executing ACL command: "+err.Error()+"\n") {
		t.Fatalf("output %q", out)
	}
}
