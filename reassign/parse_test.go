package reassign

import (
	"slices"
	"testing"

	"kafgo/internal/placement"
)

func TestFormatReassignment(t *testing.T) {
	got := FormatReassignment(map[TopicPartition][]int32{
		{"second", 0}: {2},
		{"first", 1}:  {1, 0, 2},
		{"first", 0}:  {0, 2, 1},
	})
	want := `{"version":1,"partitions":[{"topic":"first","partition":0,"replicas":[0,2,1],"log_dirs":["any","any","any"]},` +
		`{"topic":"first","partition":1,"replicas":[1,0,2],"log_dirs":["any","any","any"]},` +
		`{"topic":"second","partition":0,"replicas":[2],"log_dirs":["any"]}]}`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := FormatReassignment(nil); got != `{"version":1,"partitions":[]}` {
		t.Fatalf("empty: %s", got)
	}
}

func TestParseReassignment(t *testing.T) {
	moves, err := ParseReassignment([]byte(`{"partitions": [{"topic": "foo", "partition": 1, "replicas": [1,2,3], "log_dirs": ["any","any","any"] },
		{"topic": "bar", "partition": 0, "replicas": [3]}], "version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(moves) != 2 || moves[0].TopicPartition != (TopicPartition{"foo", 1}) || !slices.Equal(moves[0].Replicas, []int32{1, 2, 3}) ||
		moves[1].TopicPartition != (TopicPartition{"bar", 0}) || !slices.Equal(moves[1].LogDirs, []string{"any"}) {
		t.Fatalf("parsed %+v (file order must be kept)", moves)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"version":2,"partitions":[]}`, "Not supported version field value 2"},
		{`{"version":1,"partitions":[`, "The input string is not a valid JSON"},
		{`{"partitions":[{"topic":"foo","partition":1,"replicas":[1,2],"log_dirs":["any"]}]}`, "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition foo-1"},
		{`{"partitions":[{"partition":1,"replicas":[1]}]}`, "No such field exists: `topic`"},
		{`{"partitions":[{"topic":"foo","replicas":[1]}]}`, "No such field exists: `partition`"},
		{`{"partitions":[{"topic":"foo","partition":0}]}`, "No such field exists: `replicas`"},
	} {
		if _, err := ParseReassignment([]byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseTopicsToMove(t *testing.T) {
	topics, err := ParseTopicsToMove([]byte(`{"topics": [{"topic": "foo"},{"topic": "foo1"}], "version":1}`))
	if err != nil || !slices.Equal(topics, []string{"foo", "foo1"}) {
		t.Fatalf("%v %v", topics, err)
	}
	if _, err := ParseTopicsToMove([]byte(`{"topics":[],"version":3}`)); err == nil || err.Error() != "Not supported version field value 3" {
		t.Fatalf("version 3: %v", err)
	}
}

func TestValidateMoves(t *testing.T) {
	mv := func(topic string, p int32, rs ...int32) Move {
		m := Move{TopicPartition: TopicPartition{topic, p}, Replicas: rs}
		for range rs {
			m.LogDirs = append(m.LogDirs, "any")
		}
		return m
	}
	withDir := mv("foo", 0, 1, 2)
	withDir.LogDirs[1] = "/data/kafka"
	for _, tc := range []struct {
		name  string
		moves []Move
		want  string
	}{
		{"empty file", nil, "Partition reassignment list cannot be empty"},
		{"empty replicas", []Move{mv("foo", 0)}, "Partition replica list cannot be empty"},
		{"duplicate partitions", []Move{mv("foo", 0, 1), mv("foo", 1, 2), mv("foo", 0, 2), mv("foo", 1, 1)}, "Partition reassignment contains duplicate topic partitions: foo-0,foo-1"},
		{"duplicate replicas", []Move{mv("foo", 0, 1, 1, 2, 2), mv("bar", 3, 4, 4)}, "Partition replica lists may not contain duplicate entries: foo-0 contains multiple entries for 1,2. bar-3 contains multiple entries for 4"},
		{"log dir move", []Move{withDir}, `Replica 2 of partition foo-0 is assigned to log directory /data/kafka: kafgo does not implement moves between log directories; use "any"`},
		{"valid", []Move{mv("foo", 0, 1, 2), mv("foo", 1, 2, 1)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validateMoves(tc.moves)
			if got := errString(err); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestBrokerListAndRacks(t *testing.T) {
	if _, err := parseBrokerList("1,2,1,3,2"); errString(err) != "Broker list contains duplicate entries: [1, 2]" {
		t.Fatalf("duplicates: %v", err)
	}
	if _, err := parseBrokerList("1,x"); errString(err) != `For input string: "x"` {
		t.Fatalf("not a number: %v", err)
	}
	if dups := duplicateTopics([]string{"foo", "bar", "foo"}); javaStrings(dups) != "[foo]" {
		t.Fatalf("duplicate topics %v", dups)
	}
	live := []broker{{1, "a"}, {2, ""}, {3, "b"}, {4, "b"}}
	if _, err := usableBrokers(live, []int32{1, 2}, true); errString(err) != "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information." {
		t.Fatalf("mixed racks: %v", err)
	}
	got, err := usableBrokers(live, []int32{1, 2, 9}, false)
	if err != nil || !slices.Equal(got, []placement.BrokerRack{{ID: 1}, {ID: 2}}) {
		t.Fatalf("rack-unaware, unknown broker dropped: %v %v", got, err)
	}
	got, err = usableBrokers(live, []int32{3, 1}, true)
	if err != nil || !slices.Equal(got, []placement.BrokerRack{{ID: 1, Rack: "a"}, {ID: 3, Rack: "b"}}) {
		t.Fatalf("rack-aware: %v %v", got, err)
	}
	if _, err := proposeAssignment(map[TopicPartition][]int32{{"t", 0}: {1, 2, 3}}, got); errString(err) != "Replication factor: 3 larger than available brokers: 2." {
		t.Fatalf("rf above brokers: %v", err)
	}
}

func TestCheckFlags(t *testing.T) {
	for _, tc := range []struct {
		action Action
		set    []string
		want   string
	}{
		{ActionList, []string{"list"}, "Please specify --bootstrap-server"},
		{ActionList, []string{"list", "bootstrap-server", "command-config"}, ""},
		{ActionGenerate, []string{"generate", "bootstrap-server", "broker-list"}, `Missing required argument "[topics-to-move-json-file]"`},
		{ActionGenerate, []string{"generate", "bootstrap-server", "broker-list", "topics-to-move-json-file", "disable-rack-aware"}, ""},
		{ActionExecute, []string{"execute", "bootstrap-server", "reassignment-json-file", "disable-rack-aware"}, `Option "[disable-rack-aware]" can't be used with action "[execute]"`},
		{ActionExecute, []string{"execute", "bootstrap-server", "reassignment-json-file", "additional", "throttle", "replica-alter-log-dirs-throttle", "timeout"}, ""},
		{ActionVerify, []string{"verify", "bootstrap-server", "reassignment-json-file", "timeout"}, `Option "[timeout]" can't be used with action "[verify]"`},
		{ActionCancel, []string{"cancel", "bootstrap-server", "reassignment-json-file", "preserve-throttles", "timeout"}, ""},
		{ActionList, []string{"list", "bootstrap-server", "reassignment-json-file"}, `Option "[reassignment-json-file]" can't be used with action "[list]"`},
	} {
		if got := errString(CheckFlags(tc.action, tc.set)); got != tc.want {
			t.Errorf("%v %v: got %q, want %q", tc.action, tc.set, got, tc.want)
		}
	}
	if _, err := ActionFromFlags(true, true, false, false, false); errString(err) != "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list" {
		t.Fatalf("two actions: %v", err)
	}
	if a, err := ActionFromFlags(false, false, false, true, false); err != nil || a != ActionCancel {
		t.Fatalf("cancel: %v %v", a, err)
	}
}

func TestValidateThrottles(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Options)
		ok   bool
	}{
		{"defaults", func(*Options) {}, true},
		{"throttle", func(o *Options) { o.Throttle = 1000000 }, true},
		{"throttle of zero", func(o *Options) { o.Throttle = 0 }, true},
		{"log dir throttle", func(o *Options) { o.LogDirsThrottle = 0 }, false},
		{"negative timeout", func(o *Options) { o.TimeoutMs = -5 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := withAction(ActionExecute, tc.set)
			if err := o.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate: %v", err)
			}
		})
	}
}
