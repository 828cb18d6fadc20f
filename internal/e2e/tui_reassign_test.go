package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

// TestTUIShowsReassignment: while a throttled reassignment copies a
// partition to a new broker, `kafgo tui --once --view reassignments`
// shows it as kafka-reassign-partitions --list would (replicas, adding,
// removing), that it is throttled and at what rate, and how far the new
// replica is behind: in offsets (the leader's view, over --admin) and in
// bytes (DescribeLogDirs); once the move is done, none is in progress and
// the throttle shows as left over until --verify clears it.
func TestTUIShowsReassignment(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	bs := "--bootstrap-server=" + c.Bootstrap()
	const topic = "moving"
	if err := createWithAssignment(ctx, cl, topic, map[int32][]int32{0: {1, 2}}); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, ctx, cl, topic, map[int32][]int32{0: {1, 2}})
	produceBulk(t, ctx, c, topic, 256, 16<<10) // 4 MiB
	var admins []string
	for i := int32(1); i <= 3; i++ {
		admins = append(admins, c.Broker(i).AdminAddr())
	}
	frame := func() string {
		return kafgo(t, "", "tui", bs, "--admin", strings.Join(admins, ","), "--once", "--no-color", "--timeout", "5s",
			"--width", "140", "--height", "20", "--view", "reassignments")
	}

	plan := writeTemp(t, "move.json", `{"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[1,3]}]}`)
	kafgo(t, "", "reassign-partitions", bs, "--execute", "--reassignment-json-file", plan, "--throttle", "50000")
	// TOPIC PARTITION REPLICAS ADDING REMOVING LEADER ISR THROTTLED
	// OFFSETS-LEFT BYTES-LEFT
	row := regexp.MustCompile(`(?m)^>\s+moving\s+0\s+1,3,2\s+3\s+2\s+1\s+1,2\s+yes\s+(\d+)\s+(\d+(?:\.\d)?)(B|KiB|MiB)$`)
	var last string
	testwait.For(t, 30*time.Second, "the move throttled and behind", func() (bool, string) {
		last = frame()
		m := row.FindStringSubmatch(last)
		if m == nil {
			return false, last
		}
		offsets, _ := strconv.Atoi(m[1])
		size, _ := strconv.ParseFloat(m[2], 64)
		return offsets > 0 && size > 0 && m[3] != "B", last
	})
	t.Logf("while moving:\n%s", last)
	for _, want := range []string{"1 partition reassigning", "throttled: brokers 1,2,3 leader 49KiB/s follower 49KiB/s", "6 Reassign]", "1 reassigning"} {
		if !strings.Contains(last, want) {
			t.Fatalf("frame lacks %q:\n%s", want, last)
		}
	}

	kafgo(t, "", "reassign-partitions", bs, "--execute", "--reassignment-json-file", plan, "--additional", "--throttle", "100000000")
	testwait.For(t, 60*time.Second, "the move done", func() (bool, string) {
		last = frame()
		return strings.Contains(last, "0 partitions reassigning") && strings.Contains(last, "no reassignments in progress"), last
	})
	// Done, but nobody ran --verify: the throttles are still set, and
	// the view says so, with how to clear them.
	for _, want := range []string{"replication throttle left set, nothing is moving", "clear it: kafgo reassign-partitions --verify --reassignment-json-file <plan>",
		"throttled: brokers 1,2,3 leader 95MiB/s follower 95MiB/s", "throttled replicas: topic moving"} {
		if !strings.Contains(last, want) {
			t.Fatalf("frame after the move lacks %q:\n%s", want, last)
		}
	}
	out := kafgo(t, "", "reassign-partitions", bs, "--verify", "--reassignment-json-file", plan)
	if !strings.Contains(out, "Reassignment of partition moving-0 is completed") {
		t.Fatalf("--verify:\n%s", out)
	}
	if last = frame(); !strings.Contains(last, "no replication throttle") {
		t.Fatalf("throttles left after --verify:\n%s", last)
	}
}
