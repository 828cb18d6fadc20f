package reassign

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

// TestThrottleValues checks Kafka's calculateProposedMoveMap and the
// throttle lists built from it: sources are the replicas before the move
// (those of the move in flight when there is one), destinations the target
// replicas that are not sources, moves in flight outside the file are
// included, and the pairs are sorted as strings.
func TestThrottleValues(t *testing.T) {
	tp := func(topic string, p int32) TopicPartition { return TopicPartition{Topic: topic, Partition: p} }
	inFlight := map[TopicPartition]InFlight{
		// foo-1 moving from [1,2] to [0,1]: replicas show the union.
		tp("foo", 1): {Replicas: []int32{0, 1, 2}, Adding: []int32{0}, Removing: []int32{2}},
		// bar-3 moving from [4] to [5], not in the file.
		tp("bar", 3): {Replicas: []int32{5, 4}, Adding: []int32{5}, Removing: []int32{4}},
	}
	targets := map[TopicPartition][]int32{
		tp("foo", 0):  {1, 2},
		tp("foo", 1):  {0, 3}, // resubmitted with a new target: sources stay [1,2]
		tp("foo", 10): {3, 1},
	}
	current := map[TopicPartition][]int32{
		tp("foo", 0):  {0, 1},
		tp("foo", 1):  {0, 1, 2},
		tp("foo", 10): {1},
	}
	mm := proposedMoves(inFlight, targets, current)
	leader, follower := topicThrottleValues(mm)
	wantLeader := map[string]string{"foo": "0:0,0:1,10:1,1:1,1:2", "bar": "3:4"}
	wantFollower := map[string]string{"foo": "0:2,10:3,1:0,1:3", "bar": "3:5"}
	for topic := range wantLeader {
		if leader[topic] != wantLeader[topic] || follower[topic] != wantFollower[topic] {
			t.Errorf("%s: leader %q follower %q, want %q %q", topic, leader[topic], follower[topic], wantLeader[topic], wantFollower[topic])
		}
	}
	if len(leader) != 2 || len(follower) != 2 {
		t.Errorf("throttled topics %v %v, want foo and bar", leader, follower)
	}
	if got := reassigningBrokers(mm); !slices.Equal(got, []int32{0, 1, 2, 3, 4, 5}) {
		t.Errorf("reassigning brokers %v", got)
	}
	// A move that only drops a replica throttles its sources, follows none.
	mm = proposedMoves(nil, map[TopicPartition][]int32{tp("foo", 0): {1}}, map[TopicPartition][]int32{tp("foo", 0): {0, 1}})
	if l, f := topicThrottleValues(mm); l["foo"] != "0:0,0:1" || f["foo"] != "" {
		t.Errorf("shrinking move: leader %q follower %q", l["foo"], f["foo"])
	}
}

// brokerRateSets is what setting the rate on the given brokers sends.
func brokerRateSets(rate string, ids ...string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, "BROKER "+id+": SET leader.replication.throttled.rate="+rate+", SET follower.replication.throttled.rate="+rate)
	}
	return out
}

// TestExecuteWithThrottle: --throttle sets the topic lists, then the rate on
// every broker involved, then starts the moves, printing Kafka's two lines.
func TestExecuteWithThrottle(t *testing.T) {
	f := newFakeCluster(t)
	out, err := f.run(withAction(ActionExecute, func(o *Options) {
		o.ReassignmentJSONFile = writeFile(t, moveFile)
		o.Throttle = 200000
	}))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	clitest.Golden(t, "execute-throttle.golden", []byte(out))
	configs, events := f.receivedConfigs()
	// foo-0 [0,1] -> [1,2] adds 2; foo-2 [2,0] -> [0,1] adds 1.
	want := append(brokerRateSets("200000", "0", "1", "2"),
		"TOPIC foo: SET leader.replication.throttled.replicas=0:0,0:1,2:0,2:2, SET follower.replication.throttled.replicas=0:2,2:1")
	if !slices.Equal(configs, want) {
		t.Fatalf("configs:\n%s\nwant:\n%s", strings.Join(configs, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(events, []string{"configs TOPIC", "configs BROKER", "reassign"}) {
		t.Fatalf("order of requests: %v", events)
	}
}

// TestExecuteAdditionalChangesThrottle: resubmitting with --additional and
// a new --throttle resets the rate, keeping the running move's sources.
func TestExecuteAdditionalChangesThrottle(t *testing.T) {
	f := newFakeCluster(t)
	f.setInFlight(TopicPartition{"foo", 1}, InFlight{Replicas: []int32{0, 1, 2}, Adding: []int32{0}, Removing: []int32{2}})
	out, err := f.run(withAction(ActionExecute, func(o *Options) {
		o.ReassignmentJSONFile = writeFile(t, `{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[0,1]}]}`)
		o.Throttle = 5000000
		o.Additional = true
	}))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, mustVerifyWarning+"\nThe inter-broker throttle limit was set to 5000000 B/s\nSuccessfully started partition reassignment for foo-1\n") {
		t.Fatalf("output:\n%s", out)
	}
	configs, _ := f.receivedConfigs()
	want := append(brokerRateSets("5000000", "0", "1", "2"),
		"TOPIC foo: SET leader.replication.throttled.replicas=1:1,1:2, SET follower.replication.throttled.replicas=1:0")
	if !slices.Equal(configs, want) {
		t.Fatalf("configs:\n%s\nwant:\n%s", strings.Join(configs, "\n"), strings.Join(want, "\n"))
	}
}

// TestExecuteThrottleRefused: a refused throttle config fails the command
// before any move starts, as Kafka's all().get() does.
func TestExecuteThrottleRefused(t *testing.T) {
	f := newFakeCluster(t)
	f.refuseConfigs["foo"] = "Invalid value for leader.replication.throttled.replicas"
	out, err := f.run(withAction(ActionExecute, func(o *Options) {
		o.ReassignmentJSONFile = writeFile(t, moveFile)
		o.Throttle = 1000
	}))
	var ce *cliutil.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *cliutil.CommandError, got %v\n%s", err, out)
	}
	clitest.Golden(t, "execute-throttle-refused.golden", []byte(out))
	if got := f.received(); len(got) != 0 {
		t.Fatalf("moves started despite the refused throttle: %v", got)
	}
}

// TestVerifyAndCancelClearThrottles: once nothing moves, --verify deletes
// the rates (and the log directory throttle) on every live broker and every
// broker of the file, and the lists of every topic of the file; so does
// --cancel; --preserve-throttles and a move in progress leave them.
func TestVerifyAndCancelClearThrottles(t *testing.T) {
	f := newFakeCluster(t)
	file := writeFile(t, moveFile)
	var want []string
	for _, id := range []string{"0", "1", "2"} {
		want = append(want, "BROKER "+id+": DELETE leader.replication.throttled.rate, DELETE follower.replication.throttled.rate, DELETE replica.alter.log.dirs.io.max.bytes.per.second")
	}
	want = append(want, "TOPIC foo: DELETE leader.replication.throttled.replicas, DELETE follower.replication.throttled.replicas")

	f.setInFlight(TopicPartition{"foo", 0}, InFlight{Replicas: []int32{1, 2, 0}, Adding: []int32{2}, Removing: []int32{0}})
	if out, err := f.run(withAction(ActionVerify, func(o *Options) { o.ReassignmentJSONFile = file })); err != nil || strings.Contains(out, "Clearing") {
		t.Fatalf("--verify in progress: %v\n%s", err, out)
	}
	if configs, _ := f.receivedConfigs(); len(configs) != 0 {
		t.Fatalf("--verify in progress altered %v", configs)
	}

	if out, err := f.run(withAction(ActionCancel, func(o *Options) { o.ReassignmentJSONFile = file })); err != nil || !strings.HasSuffix(out, "active.\nClearing broker-level throttles on brokers 0,1,2\nClearing topic-level throttles on topic foo\n") {
		t.Fatalf("--cancel: %v\n%s", err, out)
	}
	if configs, events := f.receivedConfigs(); !slices.Equal(configs, want) || !slices.Equal(events, []string{"reassign", "configs BROKER", "configs TOPIC"}) {
		t.Fatalf("--cancel altered:\n%s\nin order %v", strings.Join(configs, "\n"), events)
	}

	f.mu.Lock()
	f.inFlight = map[TopicPartition]InFlight{}
	f.mu.Unlock()
	if out, err := f.run(withAction(ActionVerify, func(o *Options) { o.ReassignmentJSONFile = file; o.PreserveThrottles = true })); err != nil || strings.Contains(out, "Clearing") {
		t.Fatalf("--verify --preserve-throttles: %v\n%s", err, out)
	}
	if configs, _ := f.receivedConfigs(); len(configs) != 0 {
		t.Fatalf("--preserve-throttles altered %v", configs)
	}
	if _, err := f.run(withAction(ActionVerify, func(o *Options) { o.ReassignmentJSONFile = file })); err != nil {
		t.Fatal(err)
	}
	if configs, _ := f.receivedConfigs(); !slices.Equal(configs, want) {
		t.Fatalf("--verify done altered:\n%s\nwant:\n%s", strings.Join(configs, "\n"), strings.Join(want, "\n"))
	}
}
