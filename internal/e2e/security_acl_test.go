package e2e

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// Until the transport authenticates (TLS, SASL), every PLAINTEXT client is
// User:ANONYMOUS, brokers included. These tests are therefore Kafka's
// "ANONYMOUS with ACLs" setups: a broker started with ANONYMOUS as super
// user bootstraps the ACLs with kafgo acls, and is restarted without it,
// after which ANONYMOUS has exactly the ACLs it was granted.

const aclAuthorizer = "kafka.security.authorizer.AclAuthorizer"

// kafgoExit runs the binary and returns stdout and the exit code.
func kafgoExit(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, testcluster.Binary(t), args...).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("kafgo %v: %v", args, err)
	}
	return string(out), 0
}

func aclBlock(header, pattern string, entries ...string) string {
	return header + " `" + pattern + "`: \n \t" + strings.Join(entries, "\n\t") + " \n\n"
}

func fetchErrors(t *testing.T, cl *kgo.Client, replicaID int32, topics ...string) map[string]error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.ReplicaID, req.MaxWaitMillis, req.MaxBytes = 11, replicaID, 0, 1<<20
	for _, n := range topics {
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = n
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.PartitionMaxBytes = 1 << 20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl.Broker(1))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]error{}
	for _, rt := range resp.Topics {
		out[rt.Topic] = kerr.ErrorForCode(rt.Partitions[0].ErrorCode)
		if rt.Partitions[0].ErrorCode == 0 && len(rt.Partitions[0].RecordBatches) == 0 {
			t.Errorf("fetch of %s returned no records", rt.Topic)
		}
	}
	return out
}

// TestACLWriteOnlyPrincipal: a principal with only Write on one topic (and
// Read on a prefix) produces there and nowhere else, cannot read it, sees
// only its topics in Metadata; prefixed ACLs apply; a replica-id Fetch from
// it is refused; and kafgo acls adds, lists and removes with
// kafka-acls.sh's exact output.
func TestACLWriteOnlyPrincipal(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"authorizer.class.name": aclAuthorizer,
		"super.users":           "User:ANONYMOUS",
	}})
	bs := "--bootstrap-server=" + c.Bootstrap()
	for _, topic := range []string{"t-ok", "t-other", "pre-a"} {
		kafgo(t, "", "topics", bs, "--create", "--topic", topic, "--partitions", "1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	setup := c.Client()
	for _, topic := range []string{"t-other", "pre-a"} {
		if err := setup.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("seed")}).FirstErr(); err != nil {
			t.Fatalf("seeding %s as super user: %v", topic, err)
		}
	}

	okLiteral := "ResourcePattern(resourceType=TOPIC, name=t-ok, patternType=LITERAL)"
	prePrefixed := "ResourcePattern(resourceType=TOPIC, name=pre-, patternType=PREFIXED)"
	anonWrite := "(principal=User:ANONYMOUS, host=*, operation=WRITE, permissionType=ALLOW)"
	anonRead := "(principal=User:ANONYMOUS, host=*, operation=READ, permissionType=ALLOW)"

	out := kafgo(t, "", "acls", bs, "--add", "--allow-principal", "User:ANONYMOUS", "--operation", "Write", "--topic", "t-ok")
	if want := aclBlock("Adding ACLs for resource", okLiteral, anonWrite) + aclBlock("Current ACLs for resource", okLiteral, anonWrite); out != want {
		t.Fatalf("acls --add:\n got %q\nwant %q", out, want)
	}
	out = kafgo(t, "", "acls", bs, "--add", "--allow-principal", "User:ANONYMOUS", "--operation", "Read", "--topic", "pre-", "--resource-pattern-type", "prefixed")
	if want := aclBlock("Adding ACLs for resource", prePrefixed, anonRead) + aclBlock("Current ACLs for resource", prePrefixed, anonRead); out != want {
		t.Fatalf("acls --add prefixed:\n got %q\nwant %q", out, want)
	}
	// A temporary ACL, removed again: the remove round trip.
	tmp := "ResourcePattern(resourceType=GROUP, name=tmp, patternType=LITERAL)"
	bobRead := "(principal=User:bob, host=10.0.0.1, operation=READ, permissionType=ALLOW)"
	out = kafgo(t, "", "acls", bs, "--add", "--allow-principal", "User:bob", "--allow-host", "10.0.0.1", "--operation", "Read", "--group", "tmp")
	if want := aclBlock("Adding ACLs for resource", tmp, bobRead) + aclBlock("Current ACLs for resource", tmp, bobRead); out != want {
		t.Fatalf("acls --add group:\n got %q\nwant %q", out, want)
	}
	if want := aclBlock("Current ACLs for resource", okLiteral, anonWrite) + aclBlock("Current ACLs for resource", prePrefixed, anonRead) + aclBlock("Current ACLs for resource", tmp, bobRead); kafgo(t, "", "acls", bs, "--list") != want {
		t.Fatalf("acls --list:\n got %q\nwant %q", kafgo(t, "", "acls", bs, "--list"), want)
	}
	if want := aclBlock("Current ACLs for resource", okLiteral, anonWrite); kafgo(t, "", "acls", bs, "--list", "--topic", "t-ok", "--resource-pattern-type", "match") != want {
		t.Fatalf("acls --list --topic t-ok match: %q", kafgo(t, "", "acls", bs, "--list", "--topic", "t-ok", "--resource-pattern-type", "match"))
	}
	if out := kafgo(t, "", "acls", bs, "--remove", "--force", "--allow-principal", "User:bob", "--allow-host", "10.0.0.1", "--operation", "Read", "--group", "tmp"); out != "" {
		t.Fatalf("acls --remove: %q", out)
	}
	if out := kafgo(t, "", "acls", bs, "--list", "--group", "tmp"); out != "" {
		t.Fatalf("group tmp after --remove: %q", out)
	}

	// Lock down: ANONYMOUS is a super user no more.
	b := c.Broker(1)
	b.Stop()
	b.SetConfig("super.users", "")
	b.Start()
	c.WaitForBrokers(time.Minute)

	cl := c.Client(kgo.RecordRetries(3))
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t-ok", Value: []byte("allowed")}).FirstErr(); err != nil {
		t.Fatalf("produce to t-ok: %v", err)
	}
	for _, topic := range []string{"t-other", "pre-a", "never-created"} {
		err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("refused")}).FirstErr()
		if !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Errorf("produce to %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
	}

	fe := fetchErrors(t, cl, -1, "t-ok", "pre-a", "t-other")
	if fe["t-ok"] != kerr.TopicAuthorizationFailed || fe["pre-a"] != nil || fe["t-other"] != kerr.TopicAuthorizationFailed {
		t.Errorf("consumer fetch: %v", fe)
	}
	// CVE-2018-1288: a client claiming a replica id is refused.
	for topic, err := range fetchErrors(t, cl, 1, "pre-a", "t-ok") {
		if err != kerr.TopicAuthorizationFailed {
			t.Errorf("replica-id fetch of %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
	}

	m, err := testcluster.Metadata(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	all := kmsg.NewPtrMetadataRequest()
	mAll, err := all.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, mt := range mAll.Topics {
		seen = append(seen, *mt.Topic)
	}
	sort.Strings(seen)
	if strings.Join(seen, ",") != "pre-a,t-ok" || len(m.Brokers) != 1 {
		t.Errorf("Metadata for all topics lists %v (%d brokers), want pre-a,t-ok", seen, len(m.Brokers))
	}
	named, err := testcluster.Metadata(ctx, cl, "t-other", "nope")
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range named.Topics {
		if mt.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(mt.Partitions) != 0 {
			t.Errorf("Metadata for %s: %v with %d partitions", *mt.Topic, kerr.ErrorForCode(mt.ErrorCode), len(mt.Partitions))
		}
	}
	if ok, _ := c.Admin().ListTopics(ctx, "never-created"); ok.Has("never-created") {
		t.Error("a refused produce created its topic")
	}

	// The tools need ACLs too now.
	out, code := kafgoExit(t, "acls", bs, "--list")
	if code != 1 || !strings.HasPrefix(out, "Error while executing ACL command: CLUSTER_AUTHORIZATION_FAILED") {
		t.Errorf("acls --list without Describe on the cluster: exit %d, %q", code, out)
	}
	out, code = kafgoExit(t, "topics", bs, "--create", "--topic", "x", "--partitions", "1")
	if code == 0 || out != "Error while executing topic command : Authorization failed.\n" {
		t.Errorf("topics --create without Create: exit %d, %q", code, out)
	}
}

// TestACLInterBrokerSuperUser: on a 3-broker ZooKeeper cluster with the
// authorizer on, brokers replicate and the controller drives them over
// PLAINTEXT as User:ANONYMOUS, which (as a Kafka operator would) is listed
// in super.users; an ACL created through one broker reaches the others
// through the ZooKeeper notifications.
func TestACLInterBrokerSuperUser(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"authorizer.class.name": aclAuthorizer,
		"super.users":           "User:ANONYMOUS",
		"min.insync.replicas":   "2",
	}})
	bs := "--bootstrap-server=" + c.Brokers()[0].Addr()
	kafgo(t, "", "topics", bs, "--create", "--topic", "replicated", "--partitions", "2", "--replication-factor", "3")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()))
	for i := 0; i < 20; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "replicated", Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatalf("acks=all produce %d: %v", i, err)
		}
	}
	testwait.For(t, time.Minute, "every replica in the ISR", func() (bool, string) {
		parts, err := testcluster.Partitions(ctx, cl, "replicated")
		if err != nil {
			return false, err.Error()
		}
		for p, st := range parts {
			if len(st.ISR) != 3 {
				return false, fmt.Sprintf("partition %d ISR %v", p, st.ISR)
			}
		}
		return len(parts) == 2, "partitions missing"
	})

	out := kafgo(t, "", "acls", bs, "--add", "--allow-principal", "User:carol", "--consumer", "--topic", "replicated", "--group", "g")
	if !strings.Contains(out, "(principal=User:carol, host=*, operation=READ, permissionType=ALLOW)") {
		t.Fatalf("acls --add --consumer: %q", out)
	}
	// Every broker's own cache (DescribeAcls sent to each broker directly)
	// gets the ACLs, through the ZooKeeper change notifications.
	for _, b := range c.Brokers() {
		testwait.For(t, time.Minute, fmt.Sprintf("broker %d caches the consumer ACLs", b.ID), func() (bool, string) {
			req := kmsg.NewPtrDescribeACLsRequest()
			req.ResourceType, req.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
			req.Operation, req.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
			resp, err := req.RequestWith(ctx, cl.Broker(int(b.ID)))
			if err != nil {
				return false, err.Error()
			}
			n := 0
			for _, r := range resp.Resources {
				n += len(r.ACLs)
			}
			return n == 3, fmt.Sprintf("%d entries", n) // Read+Describe on the topic, Read on the group
		})
	}
}
