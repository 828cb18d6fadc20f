package topics

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
	"kafgo/internal/uuid"
)

// idRE finds topic ids so goldens do not depend on random UUIDs; each test
// that normalizes ids also checks them against Metadata separately.
var idRE = regexp.MustCompile(`TopicId: [A-Za-z0-9_-]{22}`)

func normalize(s string) string { return idRE.ReplaceAllString(s, "TopicId: <id>") }

func newCluster(t *testing.T, brokers int) *kgo.Client {
	t.Helper()
	_, cl := newClusterAndClient(t, brokers)
	return cl
}

func newClusterAndClient(t *testing.T, brokers int) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, addrs := clitest.Cluster(t, kfake.NumBrokers(brokers))
	return c, clitest.Client(t, addrs)
}

// observe records every request of one key the cluster receives, leaving
// it to be handled normally. kfake validates replica assignments but does
// not place replicas as asked, so tests check the request instead.
func observe(c *kfake.Cluster, key int16) func() []kmsg.Request {
	var mu sync.Mutex
	var seen []kmsg.Request
	c.ControlKey(key, func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r)
		return nil, nil, false
	})
	return func() []kmsg.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]kmsg.Request(nil), seen...)
	}
}

// run executes o and returns what it printed.
func run(t *testing.T, cl *kgo.Client, o Options) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Run(clitest.Context(t, 20*time.Second), cl, o, &out)
	return out.String(), err
}

func mustRun(t *testing.T, cl *kgo.Client, o Options) string {
	t.Helper()
	out, err := run(t, cl, o)
	if err != nil {
		t.Fatalf("%+v: %v (output %q)", o, err, out)
	}
	return out
}

func createOpts(topic string, partitions int32, configs ...string) Options {
	return Options{Action: ActionCreate, Topic: topic, Partitions: partitions, PartitionsSet: true,
		ReplicationFactor: 1, RFSet: true, Configs: configs}
}

func TestCreate(t *testing.T) {
	c, cl := newClusterAndClient(t, 3)
	creates := observe(c, int16(kmsg.CreateTopics))
	var transcript strings.Builder
	steps := []struct {
		name    string
		o       Options
		wantErr error
	}{
		{"plain", createOpts("orders", 3), nil},
		{"collision chars", createOpts("metrics.raw_v1", 1), nil},
		{"with configs", createOpts("compacted", 2, "cleanup.policy=compact", "min.insync.replicas=1"), nil},
		{"assignment", Options{Action: ActionCreate, Topic: "placed", ReplicaAssignment: "0:1,1:2,2:0", AssignmentSet: true}, nil},
		{"broker defaults", Options{Action: ActionCreate, Topic: "defaults"}, nil},
		{"exists", createOpts("orders", 3), kerr.TopicAlreadyExists},
		{"exists if-not-exists", func() Options { o := createOpts("orders", 3); o.IfNotExists = true; return o }(), nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, err := run(t, cl, s.o)
			if s.wantErr == nil && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if s.wantErr != nil {
				var ce *cliutil.CommandError
				if !errors.As(err, &ce) || !errors.Is(err, s.wantErr) {
					t.Fatalf("error %v, want a cliutil.CommandError wrapping %v", err, s.wantErr)
				}
			}
			transcript.WriteString("$ " + s.name + "\n" + out)
		})
	}
	clitest.Golden(t, "create.golden", []byte(transcript.String()))

	// The assignment and configs must have reached the broker as given,
	// with -1 counts wherever a flag was absent.
	var placed, defaults, compacted *kmsg.CreateTopicsRequestTopic
	for _, r := range creates() {
		for i, rt := range r.(*kmsg.CreateTopicsRequest).Topics {
			switch rt.Topic {
			case "placed":
				placed = &r.(*kmsg.CreateTopicsRequest).Topics[i]
			case "defaults":
				defaults = &r.(*kmsg.CreateTopicsRequest).Topics[i]
			case "compacted":
				compacted = &r.(*kmsg.CreateTopicsRequest).Topics[i]
			}
		}
	}
	if placed == nil || defaults == nil || compacted == nil {
		t.Fatal("CreateTopics requests not seen")
	}
	if placed.NumPartitions != -1 || placed.ReplicationFactor != -1 || len(placed.ReplicaAssignment) != 3 {
		t.Fatalf("placed request %+v", placed)
	}
	for p, w := range [][]int32{{0, 1}, {1, 2}, {2, 0}} {
		ra := placed.ReplicaAssignment[p]
		if ra.Partition != int32(p) || !equalIDs(ra.Replicas, w) {
			t.Errorf("partition %d assignment %+v, want %v", p, ra, w)
		}
	}
	if defaults.NumPartitions != -1 || defaults.ReplicationFactor != -1 {
		t.Errorf("defaults request counts %d/%d, want -1/-1", defaults.NumPartitions, defaults.ReplicationFactor)
	}
	got := map[string]string{}
	for _, c := range compacted.Configs {
		got[c.Name] = *c.Value
	}
	if len(got) != 2 || got["cleanup.policy"] != "compact" || got["min.insync.replicas"] != "1" {
		t.Errorf("compacted configs %v", got)
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestListAndDescribe(t *testing.T) {
	cl := newCluster(t, 1)
	for _, o := range []Options{
		createOpts("beta", 2, "retention.ms=60000", "cleanup.policy=compact"),
		createOpts("alpha", 3),
		createOpts("strict", 2, "min.insync.replicas=2"),
		createOpts("exact", 1, "min.insync.replicas=1"),
	} {
		mustRun(t, cl, o)
	}
	cases := []struct {
		name string
		o    Options
	}{
		{"list", Options{Action: ActionList}},
		{"list-regex", Options{Action: ActionList, Topic: "a.*,beta"}},
		{"list-exclude-internal", Options{Action: ActionList, ExcludeInternal: true}},
		{"describe-all", Options{Action: ActionDescribe}},
		{"describe-one", Options{Action: ActionDescribe, Topic: "beta"}},
		{"describe-under-min-isr", Options{Action: ActionDescribe, UnderMinISR: true}},
		{"describe-at-min-isr", Options{Action: ActionDescribe, AtMinISR: true}},
		{"describe-under-replicated", Options{Action: ActionDescribe, UnderReplicated: true}},
		{"describe-unavailable", Options{Action: ActionDescribe, Unavailable: true}},
		{"describe-overrides", Options{Action: ActionDescribe, TopicsWithOverrides: true}},
		{"describe-missing-if-exists", Options{Action: ActionDescribe, Topic: "nope", IfExists: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, cl, c.o)
			clitest.Golden(t, c.name+".golden", []byte(normalize(out)))
		})
	}

	t.Run("topic id is Java's Uuid form", func(t *testing.T) {
		out := mustRun(t, cl, Options{Action: ActionDescribe, Topic: "alpha"})
		md, err := kadm.NewClient(cl).Metadata(clitest.Context(t, 10*time.Second), "alpha")
		if err != nil {
			t.Fatal(err)
		}
		id := md.Topics["alpha"].ID
		if id == ([16]byte{}) {
			t.Fatal("kfake reported no topic id")
		}
		want := "TopicId: " + uuid.UUID(id).String() + "\t"
		if !strings.Contains(out, want) || strings.ContainsAny(uuid.UUID(id).String(), "+/=") {
			t.Fatalf("describe output %q lacks %q in URL-safe unpadded base64", out, want)
		}
	})
}

func TestCommandErrors(t *testing.T) {
	cl := newCluster(t, 1)
	mustRun(t, cl, createOpts("present", 2))
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"describe missing", Options{Action: ActionDescribe, Topic: "nope"}, "Topic 'nope' does not exist as expected"},
		{"delete missing", Options{Action: ActionDelete, Topic: "nope"}, "Topic 'nope' does not exist as expected"},
		{"alter missing", Options{Action: ActionAlter, Topic: "nope", Partitions: 3, PartitionsSet: true}, "Topic 'nope' does not exist as expected"},
		{"zero partitions", createOpts("x", 0), "The partitions must be greater than 0"},
		{"rf zero", Options{Action: ActionCreate, Topic: "x", ReplicationFactor: 0, RFSet: true}, "The replication factor must be between 1 and 32767 inclusive"},
		{"rf too big", Options{Action: ActionCreate, Topic: "x", ReplicationFactor: 40000, RFSet: true}, "The replication factor must be between 1 and 32767 inclusive"},
		{"bad config", createOpts("x", 1, "retention.ms"), `Invalid topic config: all configs to be added must be in the format "key=val".`},
		{"duplicate replicas", Options{Action: ActionCreate, Topic: "x", ReplicaAssignment: "1:1", AssignmentSet: true}, "Partition replica lists may not contain duplicate entries: 1,1"},
		{"uneven replicas", Options{Action: ActionCreate, Topic: "x", ReplicaAssignment: "0,1:2:3", AssignmentSet: true}, "Partition 1 has different replication factor: [1, 2, 3]"},
		{"non-numeric replica", Options{Action: ActionCreate, Topic: "x", ReplicaAssignment: "0:a", AssignmentSet: true}, `For input string: "a"`},
		{"exists", createOpts("present", 1), "Topic 'present' already exists."},
	}
	var transcript strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, cl, c.o)
			var ce *cliutil.CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a cliutil.CommandError", err)
			}
			if err.Error() != c.want {
				t.Fatalf("error %q, want %q", err, c.want)
			}
			if want := "Error while executing topic command : " + c.want + "\n"; !strings.HasSuffix(out, want) {
				t.Fatalf("output %q does not end with %q", out, want)
			}
			transcript.WriteString(out)
		})
	}
	clitest.Golden(t, "errors.golden", []byte(transcript.String()))
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"no action", Options{}, ErrActionCount.Error()},
		{"create without topic", Options{Action: ActionCreate}, `Missing required argument "[topic]"`},
		{"alter without partitions", Options{Action: ActionAlter, Topic: "t"}, `Missing required argument "[partitions]"`},
		{"assignment with partitions", Options{Action: ActionCreate, Topic: "t", AssignmentSet: true, PartitionsSet: true}, `Option "[replica-assignment]" can't be used with option "[partitions]"`},
		{"assignment with rf", Options{Action: ActionCreate, Topic: "t", AssignmentSet: true, RFSet: true}, `Option "[replica-assignment]" can't be used with option "[replication-factor]"`},
		{"config with describe", Options{Action: ActionDescribe, Configs: []string{"a=b"}}, `Option "[config]" can't be used with option "[describe]"`},
		{"rf with alter", Options{Action: ActionAlter, Topic: "t", PartitionsSet: true, RFSet: true}, `Option "[replication-factor]" can't be used with option "[alter]"`},
		{"partitions with list", Options{Action: ActionList, PartitionsSet: true}, `Option "[partitions]" can't be used with option "[list]"`},
		{"if-exists with create", Options{Action: ActionCreate, Topic: "t", IfExists: true}, `Option "[if-exists]" can't be used with option "[create]"`},
		{"if-not-exists with delete", Options{Action: ActionDelete, Topic: "t", IfNotExists: true}, `Option "[if-not-exists]" can't be used with option "[delete]"`},
		{"exclude-internal with delete", Options{Action: ActionDelete, Topic: "t", ExcludeInternal: true}, `Option "[exclude-internal]" can't be used with option "[delete]"`},
		{"report with list", Options{Action: ActionList, UnderReplicated: true}, `Option "[under-replicated-partitions]" can't be used with option "[list]"`},
		{"two reports", Options{Action: ActionDescribe, UnderMinISR: true, TopicsWithOverrides: true}, `Option "[under-min-isr-partitions]" can't be used with option "[topics-with-overrides]"`},
		{"ok describe", Options{Action: ActionDescribe, Unavailable: true}, ""},
		{"ok alter with assignment", Options{Action: ActionAlter, Topic: "t", PartitionsSet: true, AssignmentSet: true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("Validate() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestActionFromFlags(t *testing.T) {
	cases := []struct {
		name                                  string
		list, describe, create, alter, delete bool
		want                                  Action
		wantErr                               bool
	}{
		{name: "none", wantErr: true},
		{name: "two", list: true, delete: true, wantErr: true},
		{name: "list", list: true, want: ActionList},
		{name: "describe", describe: true, want: ActionDescribe},
		{name: "create", create: true, want: ActionCreate},
		{name: "alter", alter: true, want: ActionAlter},
		{name: "delete", delete: true, want: ActionDelete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ActionFromFlags(c.list, c.describe, c.create, c.alter, c.delete)
			if (err != nil) != c.wantErr || a != c.want {
				t.Fatalf("got %v, %v; want %v, error %v", a, err, c.want, c.wantErr)
			}
			if err != nil && !errors.Is(err, ErrActionCount) {
				t.Fatalf("error %v is not ErrActionCount", err)
			}
		})
	}
}

func TestAlterAndDelete(t *testing.T) {
	c, cl := newClusterAndClient(t, 3)
	grows := observe(c, int16(kmsg.CreatePartitions))
	mustRun(t, cl, createOpts("grow", 2))
	mustRun(t, cl, createOpts("gone-1", 1))
	mustRun(t, cl, createOpts("gone-2", 1))
	adm := kadm.NewClient(cl)
	partitions := func(topic string) int {
		md, err := adm.Metadata(clitest.Context(t, 10*time.Second), topic)
		if err != nil {
			t.Fatal(err)
		}
		return len(md.Topics[topic].Partitions)
	}

	t.Run("raise partitions", func(t *testing.T) {
		if out := mustRun(t, cl, Options{Action: ActionAlter, Topic: "grow", Partitions: 4, PartitionsSet: true}); out != "" {
			t.Fatalf("alter printed %q, want nothing", out)
		}
		if n := partitions("grow"); n != 4 {
			t.Fatalf("grow has %d partitions, want 4", n)
		}
	})
	t.Run("raise with assignment", func(t *testing.T) {
		o := Options{Action: ActionAlter, Topic: "grow", Partitions: 5, PartitionsSet: true,
			ReplicaAssignment: "0:1,1:2,2:0,0:2,2:1", AssignmentSet: true}
		mustRun(t, cl, o)
		if n := partitions("grow"); n != 5 {
			t.Fatalf("grow has %d partitions, want 5", n)
		}
		reqs := grows()
		last := reqs[len(reqs)-1].(*kmsg.CreatePartitionsRequest).Topics[0]
		if last.Count != 5 || len(last.Assignment) != 1 || !equalIDs(last.Assignment[0].Replicas, []int32{2, 1}) {
			t.Fatalf("CreatePartitions sent %+v, want count 5 with only the new partition's [2 1]", last)
		}
	})
	t.Run("lower partitions fails", func(t *testing.T) {
		_, err := run(t, cl, Options{Action: ActionAlter, Topic: "grow", Partitions: 1, PartitionsSet: true})
		if !errors.Is(err, kerr.InvalidPartitions) {
			t.Fatalf("error %v, want INVALID_PARTITIONS", err)
		}
	})
	t.Run("delete by regex", func(t *testing.T) {
		if out := mustRun(t, cl, Options{Action: ActionDelete, Topic: "gone-.*"}); out != "" {
			t.Fatalf("delete printed %q, want nothing", out)
		}
		clitest.Eventually(t, 10*time.Second, func() (bool, error) {
			out := mustRun(t, cl, Options{Action: ActionList})
			return out == "grow\n", errors.New("list still shows " + out)
		})
	})
	t.Run("delete missing if-exists", func(t *testing.T) {
		if out := mustRun(t, cl, Options{Action: ActionDelete, Topic: "gone-1", IfExists: true}); out != "" {
			t.Fatalf("printed %q", out)
		}
	})
}

func TestRenderDescribeFilters(t *testing.T) {
	// kfake keeps every replica in sync and every leader alive, so the
	// under-replicated and unavailable filters are checked on synthetic
	// descriptions of a cluster where broker 3 is down.
	v := func(s string) *string { return &s }
	descs := []TopicDescription{
		{
			Name: "a", ID: [16]byte{1, 2, 3}, MinISR: 2,
			Configs: []ConfigEntry{{Name: "min.insync.replicas", Value: v("2")}},
			Partitions: []PartitionDescription{
				{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}},
				{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 1}},
				{Partition: 2, Leader: 3, Replicas: []int32{3, 1, 2}, ISR: []int32{3}},
				{Partition: 3, Leader: -1, Replicas: []int32{3}, ISR: nil},
			},
		},
		{
			Name: "b", MinISR: 1,
			Partitions: []PartitionDescription{
				{Partition: 0, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}},
			},
		},
	}
	live := map[int32]bool{1: true, 2: true}
	cases := []struct {
		name string
		o    Options
	}{
		{"all", Options{}},
		{"under-replicated", Options{UnderReplicated: true}},
		{"unavailable", Options{Unavailable: true}},
		{"under-min-isr", Options{UnderMinISR: true}},
		{"at-min-isr", Options{AtMinISR: true}},
		{"overrides", Options{TopicsWithOverrides: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := RenderDescribe(&out, descs, live, c.o); err != nil {
				t.Fatal(err)
			}
			clitest.Golden(t, "render-"+c.name+".golden", out.Bytes())
		})
	}
}

func TestParseReplicaAssignment(t *testing.T) {
	cases := []struct {
		in   string
		want [][]int32
		err  string
	}{
		{in: "0:1,1:2,2:0", want: [][]int32{{0, 1}, {1, 2}, {2, 0}}},
		{in: " 3 , 4 ", want: [][]int32{{3}, {4}}},
		{in: "1:2:1", err: "Partition replica lists may not contain duplicate entries: 1,1"},
		{in: "1:2,3", err: "Partition 1 has different replication factor: [3]"},
		{in: "", err: `For input string: ""`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseReplicaAssignment(c.in)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if !equalIDs(got[i], c.want[i]) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}
