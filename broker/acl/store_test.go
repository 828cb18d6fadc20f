package acl

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/meta"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// backends run the store-backed tests on both stores; each returns a
// factory of sessions on one fresh tree (one session per "broker").
var backends = []struct {
	name     string
	newStore func(t *testing.T) func(t *testing.T) meta.Store
}{
	{"embedded", func(t *testing.T) func(t *testing.T) meta.Store {
		s, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), quiet())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		e := s.(*meta.Embedded)
		return func(t *testing.T) meta.Store {
			sess, err := e.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.Close() })
			return sess
		}
	}},
	{"zookeeper", func(t *testing.T) func(t *testing.T) meta.Store {
		zk := testcluster.StartZooKeeper(t)
		return func(t *testing.T) meta.Store {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := meta.DialZooKeeper(ctx, zk.Connect(), 10*time.Second, quiet())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}},
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// started is an authorizer on s, loaded and following notifications
// until the test ends.
func started(t *testing.T, s meta.Store, cfg Config) *Authorizer {
	t.Helper()
	cfg.Logger = quiet()
	a := New(s, cfg)
	if err := a.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a.Follow(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return a
}

func getData(t *testing.T, s meta.Store, path string) string {
	t.Helper()
	data, _, err := s.Get(testCtx(t), path)
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return string(data)
}

// notifications returns the data of a change directory's notifications.
func notifications(t *testing.T, s meta.Store, path string) []string {
	t.Helper()
	children, _, err := s.Children(testCtx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range children {
		if !strings.HasPrefix(c, "acl_changes_") {
			t.Errorf("notification named %s", c)
		}
		out = append(out, getData(t, s, path+"/"+c))
	}
	return out
}

// TestStoredAsKafka pins what CreateACLs and DeleteACLs leave in the store:
// Kafka's paths, JSON and notifications, on ZooKeeper and the embedded
// store alike.
func TestStoredAsKafka(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.newStore(t)(t)
			a := started(t, s, Config{})
			ctx := testCtx(t)
			errs := a.CreateACLs(ctx, []Binding{
				bind(Topic, "orders", Literal, "User:alice", "*", OpRead, Allow),
				bind(Topic, "orders", Literal, "User:bob", "10.1.2.3", OpIdempotentWrite, Deny),
				bind(Topic, "orders", Literal, "User:alice", "*", OpRead, Allow), // duplicate: a set
				bind(TransactionalID, "tx-", Prefixed, "User:alice", "*", OpWrite, Allow),
				bind(Cluster, ClusterName, Literal, "User:broker", "*", OpClusterAction, Allow),
			})
			for i, err := range errs {
				if err != nil {
					t.Fatalf("binding %d: %v", i, err)
				}
			}
			golden := map[string]string{
				"/kafka-acl/Topic/orders":                          `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:bob","permissionType":"Deny","operation":"IdempotentWrite","host":"10.1.2.3"}]}`,
				"/kafka-acl-extended/prefixed/TransactionalId/tx-": `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Write","host":"*"}]}`,
				"/kafka-acl/Cluster/kafka-cluster":                 `{"version":1,"acls":[{"principal":"User:broker","permissionType":"Allow","operation":"ClusterAction","host":"*"}]}`,
			}
			for path, want := range golden {
				if got := getData(t, s, path); got != want {
					t.Errorf("%s:\n got  %s\n want %s", path, got, want)
				}
			}
			if got := fmt.Sprint(notifications(t, s, "/kafka-acl-changes")); got != "[Topic:orders Cluster:kafka-cluster]" {
				t.Errorf("literal notifications %s", got)
			}
			if got := fmt.Sprint(notifications(t, s, "/kafka-acl-extended-changes")); got != `[{"version":1,"resourceType":"TransactionalId","name":"tx-","patternType":"PREFIXED"}]` {
				t.Errorf("extended notifications %s", got)
			}
			for _, dir := range []string{"/kafka-acl/Group", "/kafka-acl/DelegationToken", "/kafka-acl-extended/prefixed/Topic"} {
				if ok, _, err := s.Exists(ctx, dir); err != nil || !ok {
					t.Errorf("%s not created (%v)", dir, err)
				}
			}

			// Deleting the last entry of a resource removes its znode.
			all := kmsg.ACLOperationAny
			res := a.DeleteACLs(ctx, []Filter{{
				Pattern: PatternFilter{Type: Topic, Name: ptr("orders"), PatternType: Literal},
				Entry:   EntryFilter{Principal: ptr("User:bob"), Operation: all, Permission: kmsg.ACLPermissionTypeAny},
			}})
			if len(res[0]) != 1 || res[0][0].Err != nil || res[0][0].Binding.Entry.Principal != "User:bob" {
				t.Fatalf("delete result %+v", res)
			}
			if got := getData(t, s, "/kafka-acl/Topic/orders"); got != `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}` {
				t.Errorf("after delete: %s", got)
			}
			res = a.DeleteACLs(ctx, []Filter{{
				Pattern: PatternFilter{Type: kmsg.ACLResourceTypeAny, PatternType: kmsg.ACLResourcePatternTypeAny},
				Entry:   EntryFilter{Principal: ptr("User:alice"), Operation: all, Permission: kmsg.ACLPermissionTypeAny},
			}})
			if len(res[0]) != 2 {
				t.Fatalf("delete all of alice: %+v", res)
			}
			for _, path := range []string{"/kafka-acl/Topic/orders", "/kafka-acl-extended/prefixed/TransactionalId/tx-"} {
				if ok, _, err := s.Exists(ctx, path); err != nil || ok {
					t.Errorf("%s still exists (%v)", path, err)
				}
			}
			if got := len(notifications(t, s, "/kafka-acl-changes")); got != 4 {
				t.Errorf("%d literal notifications after the deletes, want 4", got)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestReadsKafkaWritten loads ACLs a Kafka broker (or an older tool) wrote,
// with upper-case names, and refuses an entry it cannot read rather than
// dropping it.
func TestReadsKafkaWritten(t *testing.T) {
	s := backends[0].newStore(t)(t)
	ctx := testCtx(t)
	put := func(path, data string) {
		if err := meta.CreateRecursive(ctx, s, path, []byte(data), meta.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	put("/kafka-acl/Topic/t", `{"version":1,"acls":[{"principal":"User:alice","permissionType":"ALLOW","operation":"READ","host":"*"}]}`)
	put("/kafka-acl-extended/prefixed/Group/g-", `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}`)
	put("/kafka-acl/User/x", `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"All","host":"*"}]}`)
	a := started(t, s, Config{})
	alice := as("alice", "127.0.0.1")
	if !a.Authorize(alice, OpRead, Topic, "t") || !a.Authorize(alice, OpRead, Group, "g-1") {
		t.Fatal("Kafka-written ACLs not applied")
	}
	got := a.ACLs(Filter{Pattern: PatternFilter{Type: kmsg.ACLResourceTypeAny, PatternType: kmsg.ACLResourcePatternTypeAny},
		Entry: EntryFilter{Operation: OpAny, Permission: kmsg.ACLPermissionTypeAny}})
	if len(got) != 2 {
		t.Fatalf("bindings %+v", got)
	}

	put("/kafka-acl/Topic/bad", `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Deny","operation":"Frobnicate","host":"*"}]}`)
	b := New(s, Config{Logger: quiet()})
	if err := b.Start(ctx); err == nil {
		t.Fatal("an unreadable DENY was dropped instead of failing the load")
	}
}

// TestNotificationsAcrossBrokers: two brokers' authorizers on one store see
// each other's changes through the notifications, prefixed ones included,
// and concurrent changes to one resource from both keep every entry.
func TestNotificationsAcrossBrokers(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			session := be.newStore(t)
			b1 := started(t, session(t), Config{})
			b2 := started(t, session(t), Config{})
			ctx := testCtx(t)
			alice := as("alice", "127.0.0.1")

			if errs := b1.CreateACLs(ctx, []Binding{bind(Topic, "t", Literal, "User:alice", "*", OpWrite, Allow)}); errs[0] != nil {
				t.Fatal(errs[0])
			}
			testwait.Until(t, 30*time.Second, "broker 2 applies the literal ACL", func() bool { return b2.Authorize(alice, OpWrite, Topic, "t") })
			if errs := b2.CreateACLs(ctx, []Binding{bind(Topic, "p-", Prefixed, "User:alice", "*", OpRead, Allow)}); errs[0] != nil {
				t.Fatal(errs[0])
			}
			testwait.Until(t, 30*time.Second, "broker 1 applies the prefixed ACL", func() bool { return b1.Authorize(alice, OpRead, Topic, "p-1") })

			b2.DeleteACLs(ctx, []Filter{{
				Pattern: PatternFilter{Type: Topic, Name: ptr("t"), PatternType: Match},
				Entry:   EntryFilter{Operation: OpAny, Permission: kmsg.ACLPermissionTypeAny},
			}})
			testwait.Until(t, 30*time.Second, "broker 1 drops the deleted ACL", func() bool { return !b1.Authorize(alice, OpWrite, Topic, "t") })

			// Both brokers add entries to one resource at once: the
			// versioned writes retry, and nothing is lost.
			var wg sync.WaitGroup
			for i, b := range []*Authorizer{b1, b2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := 0; j < 5; j++ {
						user := fmt.Sprintf("User:u%d-%d", i, j)
						if errs := b.CreateACLs(ctx, []Binding{bind(Group, "shared", Literal, user, "*", OpRead, Allow)}); errs[0] != nil {
							t.Error(errs[0])
						}
					}
				}()
			}
			wg.Wait()
			data := getData(t, session(t), "/kafka-acl/Group/shared")
			if n := strings.Count(data, `"principal"`); n != 10 {
				t.Fatalf("%d entries stored, want 10: %s", n, data)
			}
			for _, b := range []*Authorizer{b1, b2} {
				testwait.Until(t, 30*time.Second, "every broker caches all 10 entries", func() bool {
					return len(b.ACLs(Filter{Pattern: PatternFilter{Type: Group, Name: ptr("shared"), PatternType: Literal},
						Entry: EntryFilter{Operation: OpAny, Permission: kmsg.ACLPermissionTypeAny}})) == 10
				})
			}
		})
	}
}

// TestDescribeOrder lists bindings in Kafka's cache order.
func TestDescribeOrder(t *testing.T) {
	a := cached(Config{},
		bind(Group, "g", Literal, "User:a", "*", OpRead, Allow),
		bind(Topic, "b", Prefixed, "User:a", "*", OpRead, Allow),
		bind(Topic, "a", Literal, "User:a", "*", OpRead, Allow),
		bind(Topic, "c", Literal, "User:a", "*", OpRead, Allow),
	)
	var got []string
	for _, b := range a.ACLs(Filter{Pattern: PatternFilter{Type: kmsg.ACLResourceTypeAny, PatternType: kmsg.ACLResourcePatternTypeAny},
		Entry: EntryFilter{Operation: OpAny, Permission: kmsg.ACLPermissionTypeAny}}) {
		got = append(got, b.Pattern.String())
	}
	want := []string{"Topic:LITERAL:c", "Topic:LITERAL:a", "Topic:PREFIXED:b", "Group:LITERAL:g"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestCreateRefusesInvalid: bindings Kafka cannot store fail alone.
func TestCreateRefusesInvalid(t *testing.T) {
	s := backends[0].newStore(t)(t)
	a := started(t, s, Config{})
	errs := a.CreateACLs(testCtx(t), []Binding{
		bind(Topic, "ok", Literal, "User:a", "*", OpRead, Allow),
		bind(Topic, "a/b", Literal, "User:a", "*", OpRead, Allow),
		bind(Topic, "x", Match, "User:a", "*", OpRead, Allow),
		bind(Topic, "x", Literal, "alice", "*", OpRead, Allow),
		bind(Topic, "x", Literal, "User:a", "*", OpAny, Allow),
		bind(kmsg.ACLResourceTypeAny, "x", Literal, "User:a", "*", OpRead, Allow),
		bind(Topic, "x", Literal, "User:a", "*", OpRead, kmsg.ACLPermissionTypeAny),
	})
	if errs[0] != nil {
		t.Fatalf("valid binding: %v", errs[0])
	}
	for i, err := range errs[1:] {
		if err == nil {
			t.Errorf("invalid binding %d accepted", i+1)
		}
	}
}
