package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestTUIShowsLiveCluster runs `kafgo tui --once` against a three-broker
// ZooKeeper cluster and reads its frames as an operator would: the
// brokers and the controller, a topic's partitions with leader, replicas,
// ISR, HW and every replica's LEO, and a group's lag. Then a follower is
// killed with -9 while records keep arriving: later frames show it
// offline and out of the ISR with its LEO behind, and, once it is back,
// in the ISR again at the leader's LEO.
func TestTUIShowsLiveCluster(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	const topic, group = "tv", "tv-g"
	groupCreateTopic(t, c, topic, 3, 3)
	groupProduce(t, c, topic, 90) // round robin: 30 records per partition

	adm := c.Admin()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 10, LeaderEpoch: -1})
	offs.Add(kadm.Offset{Topic: topic, Partition: 1, At: 30, LeaderEpoch: -1})
	offs.Add(kadm.Offset{Topic: topic, Partition: 2, At: 25, LeaderEpoch: -1})
	if err := adm.CommitAllOffsets(ctx, group, offs); err != nil {
		t.Fatal(err)
	}

	var admins []string
	for i := int32(1); i <= 3; i++ {
		admins = append(admins, c.Broker(i).AdminAddr())
	}
	frame := func(view string, extra ...string) string {
		args := append([]string{"tui", "--bootstrap-server", c.Bootstrap(), "--admin", strings.Join(admins, ","),
			"--once", "--no-color", "--timeout", "5s", "--width", "120", "--height", "40", "--view", view}, extra...)
		return kafgo(t, "", args...)
	}

	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	brokers := frame("brokers")
	if !strings.Contains(brokers, fmt.Sprintf("ControllerId:              %d", md.Controller)) &&
		!regexp.MustCompile(fmt.Sprintf(`ControllerId:\s+%d\n`, md.Controller)).MatchString(brokers) {
		t.Fatalf("brokers view does not name controller %d:\n%s", md.Controller, brokers)
	}
	for i := int32(1); i <= 3; i++ {
		// ID HOST:PORT RACK ROLE LEADERS REPLICAS OUT-OF-ISR ADMIN, then
		// the rate columns the width leaves room for.
		row := regexp.MustCompile(fmt.Sprintf(`(?m)^[> ]\s+%d\s+%s\s+.*\b(broker|controller)\s+\d+\s+\d+\s+0\s+ok\b`, i, regexp.QuoteMeta(c.Broker(i).Addr())))
		if !row.MatchString(brokers) {
			t.Fatalf("brokers view lacks a healthy row for broker %d:\n%s", i, brokers)
		}
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^[> ]\s+%d\s+\S+\s+.*\bcontroller\b`, md.Controller)).MatchString(brokers) {
		t.Fatalf("broker %d is not marked controller:\n%s", md.Controller, brokers)
	}

	parts := frame("partitions", "--topic", topic)
	rows := partitionRows(t, parts)
	tmd, err := adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for p, pd := range tmd.Topics[topic].Partitions {
		r := rows[int(p)]
		want := partitionRow{leader: strconv.Itoa(int(pd.Leader)), replicas: joinIDs(pd.Replicas), isr: joinIDs(pd.ISR), offline: "-", hw: "30", leo: "30", lag: "0"}
		if r != want {
			t.Fatalf("partition %d: row %+v, want %+v\n%s", p, r, want, parts)
		}
	}
	// The selected partition (0) has one detail line per replica, each at
	// the leader's LEO.
	for _, rep := range replicaRows(parts) {
		if rep.leo != "30" || rep.lag != "0" || rep.isr != "yes" {
			t.Fatalf("replica %+v of partition 0 is not in sync:\n%s", rep, parts)
		}
	}
	if n := len(replicaRows(parts)); n != 3 {
		t.Fatalf("%d replica rows, want 3:\n%s", n, parts)
	}

	groups := frame("groups", "--group", group)
	for _, want := range []string{
		fmt.Sprintf(`(?m)^\s+%s\s+0\s+10\s+30\s+20\b`, topic),
		fmt.Sprintf(`(?m)^\s+%s\s+1\s+30\s+30\s+0\b`, topic),
		fmt.Sprintf(`(?m)^\s+%s\s+2\s+25\s+30\s+5\b`, topic),
		fmt.Sprintf(`(?m)^>\s+%s\s+Empty\s+.*\b25\b`, group),
	} {
		if !regexp.MustCompile(want).MatchString(groups) {
			t.Fatalf("groups view lacks %s:\n%s", want, groups)
		}
	}

	// Kill a follower of partition 0 that is not the controller, and keep
	// writing to partition 0.
	p0 := tmd.Topics[topic].Partitions[0]
	var victim int32 = -1
	for _, r := range p0.Replicas {
		if r != p0.Leader && r != md.Controller {
			victim = r
			break
		}
	}
	if victim < 0 {
		t.Fatalf("no follower of partition 0 outside the controller: %+v, controller %d", p0, md.Controller)
	}
	c.Broker(victim).Kill()
	pcl := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	for i := range 20 {
		if err := pcl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: fmt.Appendf(nil, "late-%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	victimID := strconv.Itoa(int(victim))
	var last string
	testwait.For(t, 60*time.Second, "the killed follower offline and out of the ISR, its LEO behind", func() (bool, string) {
		last = frame("partitions", "--topic", topic)
		r := partitionRows(t, last)[0]
		behind := false
		for _, rep := range replicaRows(last) {
			if rep.id == victimID {
				behind = rep.isr == "no" && rep.leo != "50"
			}
		}
		return r.offline == victimID && !slices.Contains(strings.Split(r.isr, ","), victimID) && r.hw == "50" && r.leo == "50" && behind, last
	})
	t.Logf("with broker %d killed:\n%s", victim, last)

	c.Broker(victim).Start()
	testwait.For(t, 90*time.Second, "the follower back in the ISR at the leader's LEO", func() (bool, string) {
		last = frame("partitions", "--topic", topic)
		r := partitionRows(t, last)[0]
		reps := replicaRows(last)
		for _, rep := range reps {
			if rep.leo != "50" || rep.isr != "yes" {
				return false, last
			}
		}
		return len(reps) == 3 && r.offline == "-" && len(strings.Split(r.isr, ",")) == 3 && r.hw == "50" && r.lag == "0", last
	})
}

type partitionRow struct{ leader, replicas, isr, offline, hw, leo, lag string }

// partitionRows parses the partitions table of a frame: PARTITION LEADER
// REPLICAS ISR OFFLINE HW LEO MAX-LAG (then the rate and state columns the
// width leaves room for), the selected row marked ">", a leader that is
// not the preferred replica marked "*".
func partitionRows(t *testing.T, frame string) map[int]partitionRow {
	t.Helper()
	rows := map[int]partitionRow{}
	in := false
	for _, line := range strings.Split(frame, "\n") {
		f := strings.Fields(strings.TrimPrefix(line, ">"))
		switch {
		case len(f) > 0 && f[0] == "PARTITION":
			in = true
		case in && len(f) >= 8:
			p, err := strconv.Atoi(f[0])
			if err != nil {
				t.Fatalf("partition row %q", line)
			}
			rows[p] = partitionRow{strings.TrimSuffix(f[1], "*"), f[2], f[3], f[4], f[5], f[6], f[7]}
		case in:
			return rows
		}
	}
	return rows
}

type replicaRow struct{ id, role, isr, state, leo, lag string }

// replicaRows parses the selected partition's replica table: REPLICA ROLE
// ISR STATE LEO LAG.
func replicaRows(frame string) []replicaRow {
	var rows []replicaRow
	in := false
	for _, line := range strings.Split(frame, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "REPLICA":
			in = true
		case in && len(f) == 6:
			rows = append(rows, replicaRow{f[0], f[1], f[2], f[3], f[4], f[5]})
		case in:
			return rows
		}
	}
	return rows
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}
