package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/partid"
	"kafgo/internal/uuid"
)

func TestOffsetCheckpointText(t *testing.T) {
	path := filepath.Join(t.TempDir(), RecoveryPointCheckpointFile)
	in := map[partid.TopicPartition]int64{{Topic: "orders", Partition: 1}: 1498, {Topic: "orders", Partition: 0}: 1523, {Topic: "a.b-c_d", Partition: 10}: 0}
	if err := WriteOffsetCheckpoint(path, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "0\n3\na.b-c_d 10 0\norders 0 1523\norders 1 1498\n"; string(data) != want {
		t.Errorf("file %q, want %q", data, want)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temp file left behind: %v", err)
	}
	out, err := ReadOffsetCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("read %v", out)
	}
	for tp, off := range in {
		if out[tp] != off {
			t.Errorf("%v: %d, want %d", tp, out[tp], off)
		}
	}
	if m, err := ReadOffsetCheckpoint(filepath.Join(t.TempDir(), "missing")); err != nil || len(m) != 0 {
		t.Errorf("missing file: %v, %v", m, err)
	}
	if err := WriteOffsetCheckpoint(path, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "0\n0\n" {
		t.Errorf("empty checkpoint %q", data)
	}
}

func TestCheckpointParseErrors(t *testing.T) {
	tests := []struct {
		name, text, wantIn string
	}{
		{"empty", "", "lines"},
		{"bad version", "1\n0\n", "line 1"},
		{"bad count", "0\nx\n", "line 2"},
		{"negative count", "0\n-1\n", "line 2"},
		{"count too big", "0\n5\nt 0 1\n", "expected 5 entries, found 1"},
		{"huge count", "0\n999999999999\n", "line 2"},
		{"count too small", "0\n1\nt 0 1\nt 1 2\n", "expected 1"},
		{"too few fields", "0\n1\nt 0\n", "line 3"},
		{"bad offset", "0\n1\nt 0 x\n", "line 3"},
		{"negative partition", "0\n1\nt -1 5\n", "line 3"},
		{"illegal topic", "0\n1\n../x 0 5\n", "line 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseOffsetCheckpoint("cp", []byte(tc.text))
			if !errors.Is(err, ErrCorruptFile) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), "cp") {
				t.Errorf("err %v, want ErrCorruptFile naming the file and %q", err, tc.wantIn)
			}
		})
	}
	if _, err := parseOffsetCheckpoint("cp", []byte("0\r\n1\r\nt 0 5\r\n")); err != nil {
		t.Errorf("CRLF file: %v", err)
	}
	if _, err := parseLeaderEpochCheckpoint("ep", []byte("0\n1\n1 2 3\n")); !errors.Is(err, ErrCorruptFile) {
		t.Errorf("epoch checkpoint with 3 fields: %v", err)
	}
}

func TestLeaderEpochCheckpointText(t *testing.T) {
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFile)
	in := []EpochEntry{{0, 0}, {3, 1200}}
	if err := WriteLeaderEpochCheckpoint(path, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "0\n2\n0 0\n3 1200\n"; string(data) != want {
		t.Errorf("file %q, want %q", data, want)
	}
	out, err := ReadLeaderEpochCheckpoint(path)
	if err != nil || !equalEpochs(out, in) {
		t.Errorf("read %v, %v", out, err)
	}
}

func TestPartitionMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), PartitionMetadataFile)
	u, err := uuid.Parse("3s3o9J7JRYCO1d3n7uFvHg")
	if err != nil {
		t.Fatal(err)
	}
	id := [16]byte(u)
	if err := WritePartitionMetadata(path, id); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "version: 0\ntopic_id: 3s3o9J7JRYCO1d3n7uFvHg"; string(data) != want {
		t.Errorf("file %q, want %q", data, want)
	}
	got, err := ReadPartitionMetadata(path)
	if err != nil || got != id {
		t.Errorf("read %v, %v", got, err)
	}
	for _, bad := range []string{"", "version: 1\ntopic_id: 3s3o9J7JRYCO1d3n7uFvHg", "version: 0\ntopic: 3s3o9J7JRYCO1d3n7uFvHg", "version: 0\ntopic_id: short", "version: 0"} {
		if _, err := parsePartitionMetadata("pm", []byte(bad)); !errors.Is(err, ErrCorruptFile) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := parsePartitionMetadata("pm", []byte("version: 0\ntopic_id: 3s3o9J7JRYCO1d3n7uFvHg\n")); err != nil {
		t.Errorf("trailing newline: %v", err)
	}
}

func TestMetaProperties(t *testing.T) {
	path := filepath.Join(t.TempDir(), MetaPropertiesFile)
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	if err := WriteMetaProperties(path, MetaProperties{BrokerID: 1, ClusterID: "Rz1Yl3yzQPq7lfQ0d6iJVg"}, now); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "#\n#Wed Dec 02 12:00:00 UTC 2026\nversion=0\nbroker.id=1\ncluster.id=Rz1Yl3yzQPq7lfQ0d6iJVg\n"; string(data) != want {
		t.Errorf("file %q, want %q", data, want)
	}
	mp, err := ReadMetaProperties(path)
	if err != nil || mp.BrokerID != 1 || mp.ClusterID != "Rz1Yl3yzQPq7lfQ0d6iJVg" {
		t.Errorf("read %+v, %v", mp, err)
	}
	// What Java's Properties.store writes on another JVM: any key order,
	// other separators, escapes.
	java := "#\n#Tue Nov 24 15:55:25 UTC 2020\ncluster.id=abc\\=def\nversion = 0\n  broker.id:7\n! other comment\n"
	os.WriteFile(path, []byte(java), 0o644)
	mp, err = ReadMetaProperties(path)
	if err != nil || mp.BrokerID != 7 || mp.ClusterID != "abc=def" {
		t.Errorf("java-written file: %+v, %v", mp, err)
	}
	for _, bad := range []string{"version=1\nnode.id=1\n", "version=0\n", "version=0\nbroker.id=x\n"} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := ReadMetaProperties(path); !errors.Is(err, ErrCorruptFile) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestTopicPartitionDir(t *testing.T) {
	tests := []struct {
		in   string
		want partid.TopicPartition
		ok   bool
	}{
		{"orders-3", partid.TopicPartition{Topic: "orders", Partition: 3}, true},
		{"my-topic-name-12", partid.TopicPartition{Topic: "my-topic-name", Partition: 12}, true},
		{"__consumer_offsets-49", partid.TopicPartition{Topic: "__consumer_offsets", Partition: 49}, true},
		{"orders", partid.TopicPartition{}, false},
		{"orders-", partid.TopicPartition{}, false},
		{"-3", partid.TopicPartition{}, false},
		{"orders--1", partid.TopicPartition{Topic: "orders-", Partition: 1}, true}, // topic "orders-"
		{"orders-+1", partid.TopicPartition{}, false},
		{"orders-3.0123456789abcdef0123456789abcdef-delete", partid.TopicPartition{}, false},
		{"orders-3-future", partid.TopicPartition{}, false},
		{"or ders-3", partid.TopicPartition{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTopicPartitionDir(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseTopicPartitionDir(%q) = %v, %v", tc.in, got, err)
			}
			if tc.ok && got.String() != tc.in {
				t.Errorf("String() = %q", got.String())
			}
		})
	}
}
