package groups

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/clitest"
)

// fixture is a cluster with topic "orders" (3 partitions holding 5, 3 and
// 2 records at timestamps 1000·(i+1) ms), an active group "active" whose
// one real kgo member consumed and committed everything, and an inactive
// group "idle" with offsets 1, 2, 0 committed and no members.
type fixture struct {
	addrs  string
	admin  *kgo.Client
	adm    *kadm.Client
	member *kgo.Client
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	f := &fixture{addrs: addrs, admin: clitest.Client(t, addrs)}
	f.adm = kadm.NewClient(f.admin)
	ctx := clitest.Context(t, 30*time.Second)
	prod := clitest.Client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	n := 0
	for p, count := range []int{5, 3, 2} {
		for range count {
			n++
			r := &kgo.Record{Topic: "orders", Partition: int32(p), Value: []byte("x"), Timestamp: time.UnixMilli(int64(n) * 1000)}
			if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.member = clitest.Client(t, addrs, kgo.ConsumerGroup("active"), kgo.ConsumeTopics("orders"),
		kgo.ClientID("member-1"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	got := 0
	for got < 10 && ctx.Err() == nil {
		got += f.member.PollFetches(ctx).NumRecords()
	}
	if err := f.member.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	idle := make(kadm.Offsets)
	for p, at := range []int64{1, 2, 0} {
		idle.Add(kadm.Offset{Topic: "orders", Partition: int32(p), At: at, LeaderEpoch: -1})
	}
	if err := f.adm.CommitAllOffsets(ctx, "idle", idle); err != nil {
		t.Fatal(err)
	}
	clitest.Eventually(t, 10*time.Second, func() (bool, error) {
		gs, err := f.adm.DescribeGroups(ctx, "active")
		if err != nil {
			return false, err
		}
		return gs["active"].State == "Stable", fmt.Errorf("state %q", gs["active"].State)
	})
	return f
}

func (f *fixture) run(t *testing.T, o Options) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	o.Now = func() time.Time { return time.UnixMilli(10_500) }
	err := Run(clitest.Context(t, 30*time.Second), f.admin, o, &out, &errOut)
	return out.String(), errOut.String(), err
}

func (f *fixture) committed(t *testing.T, group string) [3]int64 {
	t.Helper()
	offs, err := f.adm.FetchOffsets(clitest.Context(t, 10*time.Second), group)
	if err != nil {
		t.Fatal(err)
	}
	var got [3]int64
	for p := range got {
		o, ok := offs.Lookup("orders", int32(p))
		got[p] = -1
		if ok {
			got[p] = o.At
		}
	}
	return got
}

func i64(n int64) *int64 { return &n }

func TestDescribeAndList(t *testing.T) {
	f := newFixture(t)

	t.Run("offsets of an active group", func(t *testing.T) {
		out, stderr, err := f.run(t, Options{Action: ActionDescribe, Groups: []string{"active"}})
		if err != nil || stderr != "" {
			t.Fatalf("%v %q", err, stderr)
		}
		lines := strings.Split(out, "\n")
		if lines[0] != "" || len(lines) != 6 {
			t.Fatalf("output %q", out)
		}
		if strings.Fields(lines[1])[0] != "GROUP" || !strings.HasPrefix(lines[1], "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID") {
			t.Fatalf("header %q", lines[1])
		}
		for p, want := range []string{"5", "3", "2"} {
			fields := strings.Fields(lines[2+p])
			if len(fields) != 9 || fields[0] != "active" || fields[1] != "orders" || fields[2] != fmt.Sprint(p) ||
				fields[3] != want || fields[4] != want || fields[5] != "0" ||
				!strings.HasPrefix(fields[6], "member-1") || fields[8] != "member-1" {
				t.Fatalf("row %q", lines[2+p])
			}
		}
		// Columns line up: every row's CONSUMER-ID starts where the header's does.
		col := strings.Index(lines[1], "CONSUMER-ID")
		for _, l := range lines[2:5] {
			if !strings.HasPrefix(l[col:], "member-1") {
				t.Fatalf("row %q misaligned", l)
			}
		}
	})
	t.Run("offsets of an idle group", func(t *testing.T) {
		out, stderr, err := f.run(t, Options{Action: ActionDescribe, Groups: []string{"idle"}})
		if err != nil {
			t.Fatal(err)
		}
		if stderr != "\nConsumer group 'idle' has no active members.\n" {
			t.Fatalf("stderr %q", stderr)
		}
		clitest.Golden(t, "describe-idle.golden", []byte(out))
	})
	t.Run("missing group", func(t *testing.T) {
		out, stderr, err := f.run(t, Options{Action: ActionDescribe, Groups: []string{"nope"}})
		if err != nil || out != "" || stderr != "Error: Consumer group 'nope' does not exist.\n" {
			t.Fatalf("%v out %q stderr %q", err, out, stderr)
		}
	})
	t.Run("members verbose", func(t *testing.T) {
		out, _, err := f.run(t, Options{Action: ActionDescribe, Groups: []string{"active"}, Members: true, Verbose: true})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[1], "GROUP           CONSUMER-ID") || !strings.HasSuffix(lines[1], "#PARTITIONS     ASSIGNMENT") {
			t.Fatalf("output %q", out)
		}
		fields := strings.Fields(lines[2])
		if fields[0] != "active" || fields[3] != "member-1" || fields[4] != "3" || strings.Join(fields[5:], " ") != "orders(0,1,2)" {
			t.Fatalf("row %q", lines[2])
		}
	})
	t.Run("state", func(t *testing.T) {
		out, _, err := f.run(t, Options{Action: ActionDescribe, Groups: []string{"active"}, StateSet: true})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		if len(lines) != 4 || lines[1] != fmt.Sprintf("%-15s %-25s %-20s %-20s %s", "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS") {
			t.Fatalf("output %q", out)
		}
		fields := strings.Fields(lines[2])
		if len(fields) != 6 || fields[0] != "active" || !strings.HasPrefix(fields[1], "127.0.0.1:") || fields[2] != "(0)" || fields[4] != "Stable" || fields[5] != "1" {
			t.Fatalf("row %q", lines[2])
		}
	})
	t.Run("all groups", func(t *testing.T) {
		out, _, err := f.run(t, Options{Action: ActionDescribe, AllGroups: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(out, "\nGROUP ") != 2 || strings.Index(out, "\nactive ") > strings.Index(out, "\nidle ") {
			t.Fatalf("output %q", out)
		}
	})
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"list", Options{Action: ActionList}},
		{"list-state-all", Options{Action: ActionList, StateSet: true}},
		{"list-state-stable", Options{Action: ActionList, StateSet: true, States: []string{"Stable"}}},
		{"list-state-empty", Options{Action: ActionList, StateSet: true, States: []string{"Empty"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := f.run(t, c.o)
			if err != nil {
				t.Fatal(err)
			}
			clitest.Golden(t, c.name+".golden", []byte(out))
		})
	}
}

func TestResetOffsets(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name    string
		o       Options
		want    [3]int64
		warning string
	}{
		{"to-earliest", Options{ToEarliest: true}, [3]int64{0, 0, 0}, ""},
		{"to-latest", Options{ToLatest: true}, [3]int64{5, 3, 2}, ""},
		{"to-current", Options{ToCurrent: true}, [3]int64{1, 2, 0}, ""},
		{"to-offset clamped", Options{ToOffset: i64(4)}, [3]int64{4, 3, 2}, "WARN New offset (4) is higher than latest offset for topic partition orders-1. Value will be set to 3\n" +
			"WARN New offset (4) is higher than latest offset for topic partition orders-2. Value will be set to 2\n"},
		{"shift-by", Options{ShiftBy: i64(-1)}, [3]int64{0, 1, 0}, "WARN New offset (-1) is lower than earliest offset for topic partition orders-2. Value will be set to 0\n"},
		// Records are stamped 1000..10000 ms: p0 holds 1-5 s, p1 6-8 s, p2 9-10 s.
		{"to-datetime", Options{ToDatetime: "1970-01-01T00:00:07.000"}, [3]int64{5, 1, 0}, ""},
		{"to-datetime zone", Options{ToDatetime: "1970-01-01T01:00:03.500+01:00"}, [3]int64{3, 0, 0}, ""},
		{"by-duration", Options{ByDuration: "PT1S"}, [3]int64{5, 3, 1}, ""}, // now is 10.5 s
	}
	var transcript strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.committed(t, "idle")
			o := c.o
			o.Action, o.Groups, o.AllTopics, o.DryRun = ActionResetOffsets, []string{"idle"}, true, true
			out, stderr, err := f.run(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if stderr != c.warning {
				t.Fatalf("stderr %q, want %q", stderr, c.warning)
			}
			if f.committed(t, "idle") != before {
				t.Fatal("a dry run changed committed offsets")
			}
			for p, w := range c.want {
				row := fmt.Sprintf("%-30s %-30s %-10d %-15d", "idle", "orders", p, w)
				if !strings.Contains(out, "\n"+row) {
					t.Fatalf("output %q lacks %q", out, row)
				}
			}
			transcript.WriteString("$ " + c.name + out)
		})
	}
	clitest.Golden(t, "reset-dry-run.golden", []byte(transcript.String()))

	t.Run("execute on chosen partitions", func(t *testing.T) {
		o := Options{Action: ActionResetOffsets, Groups: []string{"idle"}, Topics: []string{"orders:0,2"}, ToLatest: true, Execute: true}
		out, stderr, err := f.run(t, o)
		if err != nil || stderr != "" {
			t.Fatalf("%v %q", err, stderr)
		}
		if strings.Count(out, "\nidle ") != 2 {
			t.Fatalf("output %q", out)
		}
		if got := f.committed(t, "idle"); got != [3]int64{5, 2, 2} {
			t.Fatalf("committed %v, want [5 2 2]", got)
		}
	})
	t.Run("no execute warns", func(t *testing.T) {
		_, stderr, err := f.run(t, Options{Action: ActionResetOffsets, Groups: []string{"idle"}, Topics: []string{"orders"}, ToEarliest: true})
		if err != nil || !strings.HasPrefix(stderr, "WARN: No action will be performed as the --execute option is missing.") {
			t.Fatalf("%v %q", err, stderr)
		}
	})
	t.Run("active group refused", func(t *testing.T) {
		_, _, err := f.run(t, Options{Action: ActionResetOffsets, Groups: []string{"active"}, AllTopics: true, ToEarliest: true, Execute: true})
		want := "Assignments can only be reset if the group 'active' is inactive, but the current state is Stable."
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %q", err, want)
		}
	})
	t.Run("new group", func(t *testing.T) {
		_, _, err := f.run(t, Options{Action: ActionResetOffsets, Groups: []string{"fresh"}, Topics: []string{"orders"}, ToEarliest: true, Execute: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.committed(t, "fresh"); got != [3]int64{0, 0, 0} {
			t.Fatalf("committed %v", got)
		}
	})
	t.Run("shift without commit", func(t *testing.T) {
		_, _, err := f.run(t, Options{Action: ActionResetOffsets, Groups: []string{"none"}, Topics: []string{"orders:1"}, ShiftBy: i64(1)})
		if err == nil || err.Error() != "Cannot shift offset for partition orders-1 since there is no current committed offset" {
			t.Fatalf("error %v", err)
		}
	})
}

func TestDelete(t *testing.T) {
	f := newFixture(t)
	t.Run("active group fails", func(t *testing.T) {
		out, _, err := f.run(t, Options{Action: ActionDelete, Groups: []string{"active"}})
		if !errors.Is(err, ErrDeleteFailed) || !strings.HasPrefix(out, "Deletion of some consumer groups failed:\n* Group 'active' could not be deleted due to: ") {
			t.Fatalf("%v %q", err, out)
		}
	})
	t.Run("delete offsets of idle", func(t *testing.T) {
		out, stderr, err := f.run(t, Options{Action: ActionDeleteOffsets, Groups: []string{"idle"}, Topics: []string{"orders:0,1"}})
		if err != nil || stderr != "" {
			t.Fatalf("%v %q", err, stderr)
		}
		clitest.Golden(t, "delete-offsets.golden", []byte(out))
		if got := f.committed(t, "idle"); got != [3]int64{-1, -1, 0} {
			t.Fatalf("committed after delete %v", got)
		}
	})
	t.Run("idle group", func(t *testing.T) {
		out, _, err := f.run(t, Options{Action: ActionDelete, Groups: []string{"idle"}})
		if err != nil || out != "Deletion of requested consumer groups ('idle') was successful.\n" {
			t.Fatalf("%v %q", err, out)
		}
		out, _, _ = f.run(t, Options{Action: ActionList})
		if strings.Contains(out, "idle") {
			t.Fatalf("idle still listed: %q", out)
		}
	})
	t.Run("member leaves, then delete", func(t *testing.T) {
		f.member.Close()
		clitest.Eventually(t, 15*time.Second, func() (bool, error) {
			out, _, err := f.run(t, Options{Action: ActionDelete, Groups: []string{"active"}})
			return err == nil && strings.HasPrefix(out, "Deletion of requested"), fmt.Errorf("%v %q", err, out)
		})
	})
}

func TestRenderGolden(t *testing.T) {
	v := groupView{
		Group: "payments-consumer-group", State: "Stable", Protocol: "cooperative-sticky", Coord: "broker-1.example:9092 (1)",
		Members: []memberRow{
			{Group: "payments-consumer-group", ConsumerID: "client-a-0c8a3f", InstanceID: "", Host: "/10.0.0.5", ClientID: "client-a", Partitions: 2,
				Assignment: map[string][]int32{"payments": {1, 0}}},
			{Group: "payments-consumer-group", ConsumerID: "client-b-77", Host: "/10.0.0.6", ClientID: "client-b", Partitions: 0, Assignment: map[string][]int32{}},
		},
		Rows: []offsetRow{
			{Group: "payments-consumer-group", Topic: "payments", Partition: "0", Current: "42", LogEnd: "50", Lag: "8", ConsumerID: "client-a-0c8a3f", Host: "/10.0.0.5", ClientID: "client-a"},
			{Group: "payments-consumer-group", Topic: "payments", Partition: "1", LogEnd: "7", ConsumerID: "client-a-0c8a3f", Host: "/10.0.0.5", ClientID: "client-a"},
			{Group: "payments-consumer-group", ConsumerID: "client-b-77", Host: "/10.0.0.6", ClientID: "client-b"},
		},
	}
	static := v
	static.Members = []memberRow{{Group: v.Group, ConsumerID: "c-1", InstanceID: "instance-number-one", Host: "/h", ClientID: "c", Partitions: 1, Assignment: map[string][]int32{"a": {3}, "b": {0, 2}}}}
	cases := []struct {
		name  string
		write func(*strings.Builder)
	}{
		{"offsets", func(b *strings.Builder) { writeOffsets(b, v) }},
		{"members", func(b *strings.Builder) { writeMembers(b, v, false) }},
		{"members-verbose", func(b *strings.Builder) { writeMembers(b, v, true) }},
		{"members-static", func(b *strings.Builder) { writeMembers(b, static, true) }},
		{"state", func(b *strings.Builder) { writeState(b, v) }},
		{"plans", func(b *strings.Builder) {
			writePlans(b, []ResetPlan{{Group: "g", Offsets: []PlannedOffset{{"t", 0, 5}, {"t", 1, 0}}}, {Group: "h"}})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			c.write(&b)
			clitest.Golden(t, "render-"+c.name+".golden", []byte(b.String()))
		})
	}
}

func TestParsers(t *testing.T) {
	t.Run("datetime", func(t *testing.T) {
		for in, want := range map[string]int64{
			"2019-01-01T00:00:00.000":       1546300800000,
			"2019-01-01T00:00:00":           1546300800000,
			"2019-01-01T00:00:00.250Z":      1546300800250,
			"2019-01-01T02:00:00.000+02:00": 1546300800000,
			"2019-01-01T00:00:00.000-0130":  1546300800000 + 90*60*1000,
		} {
			got, err := ParseDatetime(in)
			if err != nil || got.UnixMilli() != want {
				t.Errorf("ParseDatetime(%q) = %d, %v; want %d", in, got.UnixMilli(), err, want)
			}
		}
		if _, err := ParseDatetime("2019-01-01 00:00:00"); err == nil || !strings.HasPrefix(err.Error(), "Error parsing timestamp. It does not contain a 'T'") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("duration", func(t *testing.T) {
		for in, want := range map[string]time.Duration{
			"PT1H":         time.Hour,
			"P1DT2H3M4.5S": 26*time.Hour + 3*time.Minute + 4500*time.Millisecond,
			"pt15m":        15 * time.Minute,
			"-PT10S":       -10 * time.Second,
			"P2D":          48 * time.Hour,
		} {
			got, err := ParseISODuration(in)
			if err != nil || got != want {
				t.Errorf("ParseISODuration(%q) = %v, %v; want %v", in, got, err, want)
			}
		}
		for _, bad := range []string{"", "P", "PT", "1H", "PT1D", "P1H", "PT1.5M", "PTXS"} {
			if _, err := ParseISODuration(bad); err == nil {
				t.Errorf("ParseISODuration(%q) accepted", bad)
			}
		}
	})
	t.Run("topic scope", func(t *testing.T) {
		topic, ps, err := ParseTopicScope("t:0,2")
		if err != nil || topic != "t" || len(ps) != 2 || ps[1] != 2 {
			t.Fatalf("%q %v %v", topic, ps, err)
		}
		if _, _, err := ParseTopicScope("t:x"); err == nil {
			t.Fatal("bad partition accepted")
		}
	})
	t.Run("states", func(t *testing.T) {
		got, err := ParseStates("stable, EMPTY")
		if err != nil || len(got) != 2 || got[0] != "Stable" || got[1] != "Empty" {
			t.Fatalf("%v %v", got, err)
		}
		if _, err := ParseStates("Sleeping"); err == nil || !strings.HasPrefix(err.Error(), "Invalid state list 'Sleeping'.") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"none", Options{}, ErrActionCount.Error()},
		{"describe without group", Options{Action: ActionDescribe}, "Option [describe] takes one of these options: [group], [all-groups]"},
		{"two views", Options{Action: ActionDescribe, AllGroups: true, Members: true, StateSet: true}, "Option [describe] takes at most one of these options: [members], [offsets], [state]"},
		{"verbose alone", Options{Action: ActionDescribe, AllGroups: true, Verbose: true}, "Option [verbose] can be used only with option [describe] and [members]"},
		{"reset without topics", Options{Action: ActionResetOffsets, Groups: []string{"g"}, ToEarliest: true}, "Option [reset-offsets] takes one of these options: [topic], [all-topics]"},
		{"reset without spec", Options{Action: ActionResetOffsets, Groups: []string{"g"}, AllTopics: true}, "Option [reset-offsets] takes exactly one of these options: [to-earliest], [to-latest], [to-current], [to-offset], [shift-by], [to-datetime], [by-duration]"},
		{"dry-run and execute", Options{Action: ActionResetOffsets, Groups: []string{"g"}, AllTopics: true, ToLatest: true, DryRun: true, Execute: true}, "Option [reset-offsets] only accepts one of [execute] and [dry-run]"},
		{"delete-offsets two groups", Options{Action: ActionDeleteOffsets, Groups: []string{"a", "b"}, Topics: []string{"t"}}, "Option [delete-offsets] takes the [group] option with a single group"},
		{"group and all-groups", Options{Action: ActionDelete, Groups: []string{"a"}, AllGroups: true}, "Option [all-groups] can't be used with option [group]"},
		{"topic with describe", Options{Action: ActionDescribe, Groups: []string{"a"}, Topics: []string{"t"}}, "Option [topic] and [all-topics] can be used only with [reset-offsets] or [delete-offsets]"},
		{"ok", Options{Action: ActionResetOffsets, AllGroups: true, Topics: []string{"t"}, ByDuration: "PT1M"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
