package leaderelection

import (
	"bytes"
	"strings"
	"testing"

	"kafgo/internal/testing/clitest"
	"kafgo/internal/topicpart"
)

// The goldens under testdata are written by hand from
// LeaderElectionCommand.electLeaders' format strings (Kafka 3.9) and
// Errors.java's exception classes and default messages, not from kafgo's
// output.
func TestReportGolden(t *testing.T) {
	msg := "Failed to elect leader for partition foo-3 under strategy PreferredReplicaPartitionLeaderElectionStrategy"
	results := []result{
		{tp: topicpart.TP{Topic: "foo", Partition: 10}},
		{tp: topicpart.TP{Topic: "nope", Partition: 0}, code: 3},
		{tp: topicpart.TP{Topic: "foo", Partition: 1}},
		{tp: topicpart.TP{Topic: "bar", Partition: 2}, code: 84},
		{tp: topicpart.TP{Topic: "foo", Partition: 3}, code: 80, msg: &msg},
		{tp: topicpart.TP{Topic: "foo", Partition: 0}},
	}
	var out, errOut bytes.Buffer
	err := report(Preferred, results, &out, &errOut)
	if err == nil || err.Error() != "2 replica(s) could not be elected" {
		t.Fatalf("error %v", err)
	}
	clitest.Golden(t, "report.golden", out.Bytes())
	if errOut.String() != "2 replica(s) could not be elected\n" {
		t.Fatalf("stderr %q", errOut.String())
	}

	out.Reset()
	errOut.Reset()
	if err := report(Unclean, []result{{tp: topicpart.TP{Topic: "t"}}}, &out, &errOut); err != nil || errOut.Len() != 0 {
		t.Fatalf("%v %q", err, errOut.String())
	}
	clitest.Golden(t, "report-unclean.golden", out.Bytes())

	out.Reset()
	if err := report(Preferred, nil, &out, &errOut); err != nil || out.Len() != 0 {
		t.Fatalf("nothing elected printed %q (%v)", out.String(), err)
	}
}

func TestValidate(t *testing.T) {
	base := Options{BootstrapSet: true, ElectionTypeSet: true}
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no bootstrap nor type", func(o *Options) { o.BootstrapSet, o.ElectionTypeSet = false, false; o.AllTopicPartitions = true }, "Missing required option(s): bootstrap-server, election-type"},
		{"no scope", func(*Options) {}, "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"},
		{"two scopes", func(o *Options) { o.AllTopicPartitions = true; o.PathToJSONFile = "f" }, "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"},
		{"topic without partition", func(o *Options) { o.TopicSet = true }, "Missing required option(s): partition"},
		{"partition without topic", func(o *Options) { o.AllTopicPartitions = true; o.PartitionSet = true }, "Option partition is only allowed if topic is used"},
		{"ok", func(o *Options) { o.TopicSet, o.PartitionSet = true, true }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			err := o.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if typ, err := ParseElectionType("Unclean"); err != nil || typ != Unclean {
		t.Fatal(typ, err)
	}
	if _, err := ParseElectionType("fast"); err == nil {
		t.Fatal("bad type accepted")
	}
}

func TestParseJSON(t *testing.T) {
	got, err := ParseJSON([]byte(`{"partitions": [{"topic": "foo", "partition": 1}, {"topic": "foobar", "partition": 2}]}`))
	if err != nil || len(got) != 2 || got[1] != (topicpart.TP{Topic: "foobar", Partition: 2}) {
		t.Fatalf("%v %v", got, err)
	}
	for in, want := range map[string]string{
		"  ":            "Replica election data is empty",
		`{"version":1}`: `Replica election data is missing "partitions" field`,
		`{"partitions":[{"topic":"a","partition":0},{"topic":"a","partition":0}]}`: "Replica election data contains duplicate partitions: [a-0]",
		`{"partitions":[{"topic":"a"}]}`:                                           `lacks "topic" or "partition"`,
		`{"partitions":`:                                                           "reading the JSON file",
	} {
		if _, err := ParseJSON([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}
