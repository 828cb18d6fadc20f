package reassign

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

// fakeCluster is kfake with 3 brokers (ids 0-2) and topic "foo": 3
// partitions, RF 2, partition p led by broker p, so its replicas are
// [p, p+1 mod 3]. The controller-side APIs are scripted by the test.
type fakeCluster struct {
	t     *testing.T
	kf    *kfake.Cluster
	addrs string

	mu       sync.Mutex
	inFlight map[TopicPartition]InFlight
	alters   []map[TopicPartition][]int32 // every AlterPartitionAssignments received
	refuse   map[TopicPartition]string    // partitions to fail with INVALID_REPLICA_ASSIGNMENT
	// configs holds every IncrementalAlterConfigs resource received, one
	// "TYPE name: OP key=value, ..." line each; events the order of the
	// requests ("configs TOPIC", "configs BROKER", "reassign").
	configs       []string
	events        []string
	refuseConfigs map[string]string // resource names to fail with INVALID_CONFIG
}

func newFakeCluster(t *testing.T) *fakeCluster {
	t.Helper()
	kf, addrs := clitest.Cluster(t, kfake.NumBrokers(3))
	f := &fakeCluster{t: t, kf: kf, addrs: addrs, inFlight: map[TopicPartition]InFlight{}, refuse: map[TopicPartition]string{}, refuseConfigs: map[string]string{}}
	adm := kadm.NewClient(clitest.Client(t, addrs))
	ctx := clitest.Context(t, 10*time.Second)
	if _, err := adm.CreateTopic(ctx, 3, 2, nil, "foo"); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		if err := kf.MoveTopicPartition("foo", p, p); err != nil {
			t.Fatal(err)
		}
	}
	kf.ControlKey(46, func(r kmsg.Request) (kmsg.Response, error, bool) {
		kf.KeepControl()
		req := r.(*kmsg.ListPartitionReassignmentsRequest)
		resp := req.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		f.mu.Lock()
		defer f.mu.Unlock()
		wanted := func(p TopicPartition) bool {
			if req.Topics == nil {
				return true
			}
			for _, t := range req.Topics {
				for _, q := range t.Partitions {
					if t.Topic == p.Topic && q == p.Partition {
						return true
					}
				}
			}
			return false
		}
		for p, r := range f.inFlight {
			if !wanted(p) {
				continue
			}
			rt := kmsg.NewListPartitionReassignmentsResponseTopic()
			rt.Topic = p.Topic
			rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = p.Partition, r.Replicas, r.Adding, r.Removing
			rt.Partitions = append(rt.Partitions, rp)
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	kf.ControlKey(45, func(r kmsg.Request) (kmsg.Response, error, bool) {
		kf.KeepControl()
		req := r.(*kmsg.AlterPartitionAssignmentsRequest)
		resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		f.mu.Lock()
		defer f.mu.Unlock()
		got := map[TopicPartition][]int32{}
		for _, rt := range req.Topics {
			ot := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			ot.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				p := TopicPartition{Topic: rt.Topic, Partition: rp.Partition}
				got[p] = rp.Replicas
				op := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
				op.Partition = rp.Partition
				if msg, ok := f.refuse[p]; ok {
					op.ErrorCode, op.ErrorMessage = kerr.InvalidReplicaAssignment.Code, kmsg.StringPtr(msg)
				}
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		}
		f.alters = append(f.alters, got)
		f.events = append(f.events, "reassign")
		return resp, nil, true
	})
	kf.ControlKey(44, func(r kmsg.Request) (kmsg.Response, error, bool) {
		kf.KeepControl()
		req := r.(*kmsg.IncrementalAlterConfigsRequest)
		resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, rr := range req.Resources {
			var ops []string
			for _, c := range rr.Configs {
				switch {
				case c.Op == kmsg.IncrementalAlterConfigOpSet && c.Value != nil:
					ops = append(ops, "SET "+c.Name+"="+*c.Value)
				case c.Op == kmsg.IncrementalAlterConfigOpDelete:
					ops = append(ops, "DELETE "+c.Name)
				default:
					ops = append(ops, fmt.Sprintf("op %d %s", c.Op, c.Name))
				}
			}
			f.configs = append(f.configs, fmt.Sprintf("%s %s: %s", rr.ResourceType, rr.ResourceName, strings.Join(ops, ", ")))
			if e := "configs " + rr.ResourceType.String(); len(f.events) == 0 || f.events[len(f.events)-1] != e {
				f.events = append(f.events, e)
			}
			out := kmsg.NewIncrementalAlterConfigsResponseResource()
			out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
			if msg, ok := f.refuseConfigs[rr.ResourceName]; ok {
				out.ErrorCode, out.ErrorMessage = kerr.InvalidConfig.Code, kmsg.StringPtr(msg)
			}
			resp.Resources = append(resp.Resources, out)
		}
		return resp, nil, true
	})
	return f
}

// receivedConfigs returns the config resources received, sorted, and the
// order of the requests, and forgets both.
func (f *fakeCluster) receivedConfigs() (configs, events []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	configs, events = f.configs, f.events
	f.configs, f.events = nil, nil
	slices.Sort(configs)
	return configs, events
}

func (f *fakeCluster) setInFlight(p TopicPartition, r InFlight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight[p] = r
}

func (f *fakeCluster) received() []map[TopicPartition][]int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[TopicPartition][]int32(nil), f.alters...)
}

// run executes o with a fresh client (so no metadata is cached from an
// earlier run) and returns the output.
func (f *fakeCluster) run(o Options) (string, error) {
	f.t.Helper()
	var out bytes.Buffer
	err := Run(clitest.Context(f.t, 20*time.Second), clitest.Client(f.t, f.addrs), o, &out)
	return out.String(), err
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func withAction(a Action, set func(*Options)) Options {
	o := DefaultOptions()
	o.Action = a
	if set != nil {
		set(&o)
	}
	return o
}

const moveFile = `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]},{"topic":"foo","partition":2,"replicas":[0,1],"log_dirs":["any","any"]}]}`

func TestGenerate(t *testing.T) {
	f := newFakeCluster(t)
	placementStart = func() (int, int) { return 1, 1 }
	t.Cleanup(func() { placementStart = func() (int, int) { return -1, -1 } })
	out, err := f.run(withAction(ActionGenerate, func(o *Options) {
		o.TopicsToMoveJSONFile = writeFile(t, `{"topics": [{"topic": "foo"}], "version":1}`)
		o.BrokerList = "0,1,2"
	}))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	clitest.Golden(t, "generate.golden", []byte(out))
}

func TestExecute(t *testing.T) {
	f := newFakeCluster(t)
	out, err := f.run(withAction(ActionExecute, func(o *Options) { o.ReassignmentJSONFile = writeFile(t, moveFile) }))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	clitest.Golden(t, "execute.golden", []byte(out))
	got := f.received()
	want := map[TopicPartition][]int32{{"foo", 0}: {1, 2}, {"foo", 2}: {0, 1}}
	if len(got) != 1 || len(got[0]) != 2 || !equalInts(got[0][TopicPartition{"foo", 0}], want[TopicPartition{"foo", 0}]) || !equalInts(got[0][TopicPartition{"foo", 2}], want[TopicPartition{"foo", 2}]) {
		t.Fatalf("AlterPartitionAssignments sent %v, want %v", got, want)
	}
}

func equalInts(a, b []int32) bool { return joinInts(a) == joinInts(b) && (a == nil) == (b == nil) }

func TestExecuteFailures(t *testing.T) {
	f := newFakeCluster(t)
	file := writeFile(t, moveFile)
	exec := withAction(ActionExecute, func(o *Options) { o.ReassignmentJSONFile = file })
	for _, tc := range []struct {
		name   string
		setup  func()
		o      Options
		golden string
	}{
		{"in flight without --additional", func() {
			f.setInFlight(TopicPartition{"foo", 1}, InFlight{Replicas: []int32{0, 1, 2}, Adding: []int32{0}, Removing: []int32{2}})
		}, exec, "execute-existing.golden"},
		{"unknown broker", nil, withAction(ActionExecute, func(o *Options) {
			o.ReassignmentJSONFile = writeFile(t, `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,7]}]}`)
			o.Additional = true
		}), "execute-unknown-broker.golden"},
		{"unknown partition", nil, withAction(ActionExecute, func(o *Options) {
			o.ReassignmentJSONFile = writeFile(t, `{"version":1,"partitions":[{"topic":"foo","partition":9,"replicas":[1]}]}`)
			o.Additional = true
		}), "execute-unknown-partition.golden"},
		{"refused by the controller", func() { f.refuse[TopicPartition{"foo", 2}] = "Replica assignment has brokers that are not alive." }, withAction(ActionExecute, func(o *Options) {
			o.ReassignmentJSONFile = file
			o.Additional = true
		}), "execute-refused.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			out, err := f.run(tc.o)
			var ce *cliutil.CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("want a *cliutil.CommandError, got %v\n%s", err, out)
			}
			clitest.Golden(t, tc.golden, []byte(out))
		})
	}
}

func TestVerify(t *testing.T) {
	f := newFakeCluster(t)
	file := writeFile(t, `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]},{"topic":"foo","partition":1,"replicas":[1,2]},{"topic":"foo","partition":2,"replicas":[1,2]}]}`)
	o := withAction(ActionVerify, func(o *Options) { o.ReassignmentJSONFile = file })
	f.setInFlight(TopicPartition{"foo", 2}, InFlight{Replicas: []int32{1, 2, 0}, Adding: []int32{1}, Removing: []int32{0}})
	out, err := f.run(o)
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "verify-in-progress.golden", []byte(out))

	f.mu.Lock()
	f.inFlight = map[TopicPartition]InFlight{}
	f.mu.Unlock()
	out, err = f.run(o)
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "verify-done.golden", []byte(out))
	o.PreserveThrottles = true
	if out, err = f.run(o); err != nil || strings.Contains(out, "Clearing") {
		t.Fatalf("--preserve-throttles: %v\n%s", err, out)
	}
}

// TestCancel: the lines of Kafka 2.8's cancelAssignment, each ended by println.
func TestCancel(t *testing.T) {
	f := newFakeCluster(t)
	file := writeFile(t, moveFile)
	f.setInFlight(TopicPartition{"foo", 0}, InFlight{Replicas: []int32{1, 2, 0}, Adding: []int32{2}, Removing: []int32{0}})
	out, err := f.run(withAction(ActionCancel, func(o *Options) { o.ReassignmentJSONFile = file }))
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "cancel.golden", []byte(out))
	got := f.received()
	if len(got) != 1 || len(got[0]) != 1 {
		t.Fatalf("cancel sent %v", got)
	}
	if rs, ok := got[0][TopicPartition{"foo", 0}]; !ok || rs != nil {
		t.Fatalf("cancel of foo-0 sent replicas %v (present %v), want null", rs, ok)
	}

	f.mu.Lock()
	f.inFlight = map[TopicPartition]InFlight{}
	f.mu.Unlock()
	out, err = f.run(withAction(ActionCancel, func(o *Options) { o.ReassignmentJSONFile = file; o.PreserveThrottles = true }))
	if err != nil {
		t.Fatal(err)
	}
	// Kafka 2.8's ReassignPartitionsCommand.cancelAssignment ends both
	// lines with println (3.7's Java port dropped the second line break,
	// gluing the next line on, and left the output without a final one).
	if want := "None of the specified partition reassignments are active.\nNone of the specified partition moves are active.\n"; out != want {
		t.Fatalf("cancel of nothing:\n%q\nwant\n%q", out, want)
	}
}

func TestList(t *testing.T) {
	f := newFakeCluster(t)
	o := withAction(ActionList, nil)
	out, err := f.run(o)
	if err != nil || out != "No partition reassignments found.\n" {
		t.Fatalf("empty list: %v %q", err, out)
	}
	f.setInFlight(TopicPartition{"foo", 1}, InFlight{Replicas: []int32{1, 2, 0}, Adding: []int32{0}, Removing: []int32{2}})
	f.setInFlight(TopicPartition{"foo", 0}, InFlight{Replicas: []int32{2, 1}, Removing: []int32{1}})
	if out, err = f.run(o); err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "list.golden", []byte(out))
}
