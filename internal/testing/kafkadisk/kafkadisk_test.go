package kafkadisk

import (
	"bytes"
	"os"
	"testing"
)

// The generator is checked against files a real Kafka broker wrote
// (testdata/kafka-2.x-datadir): where it writes the same content, it writes
// the same bytes.
const real = "../../../testdata/kafka-2.x-datadir/kafka-logs/"

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(real + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBatchMatchesKafka(t *testing.T) {
	log := readReal(t, "first_topic-0/00000000000000000000.log")
	// The first batch Kafka wrote: offset 0, leader epoch 0, one record
	// without key, "just for fun", at 1587576892921.
	b := Plain(0, 0, 1587576892921, Record{Value: []byte("just for fun")}).Encode()
	if !bytes.Equal(b, log[:len(b)]) {
		t.Errorf("batch\n got % x\nwant % x", b, log[:len(b)])
	}
	// The two-record batch at offset 7 (position 549, 84 bytes): hello at
	// 1587580220919 and bye 966 ms later.
	b = Plain(7, 0, 1587580220919, Record{Value: []byte("hello")}, Record{Value: []byte("bye"), TimestampDelta: 966}).Encode()
	if !bytes.Equal(b, log[549:549+84]) {
		t.Errorf("two-record batch\n got % x\nwant % x", b, log[549:549+84])
	}
}

func TestSnapshotMatchesKafka(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSnapshot(dir, 11, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dir + "/00000000000000000011.snapshot")
	if want := readReal(t, "first_topic-0/00000000000000000011.snapshot"); !bytes.Equal(got, want) {
		t.Errorf("empty snapshot % x, want % x", got, want)
	}
}

func TestOffsetsRecordsMatchKafka(t *testing.T) {
	for group, p := range map[string]int32{"my-first-application": 18, "my-second-application": 12, "my-firstd-application": 32} {
		if got := CoordinatorPartition(group, 50); got != p {
			t.Errorf("CoordinatorPartition(%s) = %d, Kafka stored the group in partition %d", group, got, p)
		}
	}
	log := readReal(t, "__consumer_offsets-32/00000000000000000000.log")
	for name, b := range map[string][]byte{
		"offset commit key":  OffsetCommitKey("my-firstd-application", "first_topic", 2),
		"group metadata key": GroupMetadataKey("my-firstd-application"),
		// value version 3, offset 11, no leader epoch (-1), metadata "", as Kafka wrote it
		"offset commit value prefix": OffsetCommitValueV3(11, -1, "", 0)[:16],
	} {
		if !bytes.Contains(log, b) {
			t.Errorf("%s % x is not in Kafka's __consumer_offsets-32", name, b)
		}
	}
	if got, want := Checkpoint(), readReal(t, "log-start-offset-checkpoint"); !bytes.Equal(got, want) {
		t.Errorf("empty checkpoint %q, want %q", got, want)
	}
}
