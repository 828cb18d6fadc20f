package e2e

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
)

// The real Kafka data dir in testdata/kafka-2.x-datadir/kafka-logs was
// written by an Apache Kafka 2.x broker (broker.id 0, cluster
// lRaQCIBoRh2xRKLuP9CAQg; see its README): topics first_topic (3
// partitions) and new_topic, 50 __consumer_offsets partitions with the
// offsets and group metadata of three consumer groups, empty producer
// snapshots, leader epoch checkpoints and the dir's offset checkpoints.
const (
	realDataDir       = "../../testdata/kafka-2.x-datadir/kafka-logs"
	realDataClusterID = "lRaQCIBoRh2xRKLuP9CAQg"
)

// realDataRecords are the record counts of the fixture's partitions and a
// value each starts with (from kafka-dump-log of the files).
var realDataRecords = map[string]struct {
	count int
	first string
}{
	"first_topic-0": {11, "just for fun"},
	"first_topic-1": {12, ""},
	"first_topic-2": {18, ""},
	"new_topic-0":   {2, ""},
}

// seedRealDataZK writes the ZooKeeper state the fixture's Kafka cluster
// had: its cluster id, the topics with broker 0 as their only replica, the
// partition states with leader epoch 0 (the epoch in every
// leader-epoch-checkpoint), topic configs, the producer id block and the
// feature znode, in the znode versions of Kafka 2.4 to 2.8.
func seedRealDataZK(z *kafkaZK) {
	z.persistent()
	z.create("/cluster/id", `{"version":"1","id":"`+realDataClusterID+`"}`)
	z.create("/controller_epoch", "5")
	z.topic("first_topic", 1, "", map[int][]int{0: {0}, 1: {0}, 2: {0}}, nil, nil)
	z.topic("new_topic", 2, "", map[int][]int{0: {0}}, map[int][]int{}, map[int][]int{})
	offsets := map[int][]int{}
	for p := 0; p < 50; p++ {
		offsets[p] = []int{0}
	}
	z.topic("__consumer_offsets", 3, "", offsets, map[int][]int{}, map[int][]int{})
	for p := 0; p < 3; p++ {
		z.partitionState("first_topic", p, 5, 0, 0, []int{0})
	}
	z.partitionState("new_topic", 0, 5, 0, 0, []int{0})
	for p := 0; p < 50; p++ {
		z.partitionState("__consumer_offsets", p, 5, 0, 0, []int{0})
	}
	z.config("topics/first_topic")
	z.config("topics/new_topic", "max.message.bytes", "2000")
	z.config("topics/__consumer_offsets", "segment.bytes", "104857600", "compression.type", "producer", "cleanup.policy", "compact")
	z.create("/config/changes/config_change_0000000000", `{"version":2,"entity_path":"topics/new_topic"}`)
	z.create("/latest_producer_id_block", `{"version":1,"broker":0,"block_start":"0","block_end":"999"}`)
	z.create("/feature", `{"features":{},"version":1,"status":1}`)
}

// copyDir copies a directory tree (regular files and dirs only).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kafkaServerProperties is Kafka 2.8's config/server.properties with only
// its listener, log dir and ZooKeeper lines changed, written to dir.
func kafkaServerProperties(t *testing.T, dir string, port int, logDirs, zkConnect string, extra ...string) string {
	t.Helper()
	orig, err := os.ReadFile("../../testdata/kafka-2.8/config/server.properties")
	if err != nil {
		t.Fatal(err)
	}
	text := rewriteLines(t, string(orig), map[string]string{
		`^#?listeners=PLAINTEXT://`: fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d", port),
		`^log\.dirs=`:               "log.dirs=" + logDirs,
		`^zookeeper\.connect=`:      "zookeeper.connect=" + zkConnect,
	})
	text += "\n" + strings.Join(extra, "\n") + "\n"
	path := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDropInKafkaDataDir: kafgo started on a log dir Apache Kafka 2.x
// wrote, with that cluster's ZooKeeper state, after a clean shutdown (the
// marker present) and after a crash (no marker): kcat reads every record,
// consumer groups resume from the offsets Kafka committed, topic configs
// apply, producer ids continue after Kafka's last block, and what kafgo
// leaves behind is still in Kafka's formats.
func TestDropInKafkaDataDir(t *testing.T) {
	for _, clean := range []bool{true, false} {
		name := "unclean"
		if clean {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			zkc := testcluster.StartZooKeeper(t)
			z := dialKafkaZK(t, zkc.Connect())
			seedRealDataZK(z)
			dir := t.TempDir()
			logs := filepath.Join(dir, "kafka-logs")
			copyDir(t, realDataDir, logs)
			if !clean {
				if err := os.Remove(filepath.Join(logs, ".kafka_cleanshutdown")); err != nil {
					t.Fatal(err)
				}
			}
			port := testcluster.FreePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			p := startServe(t, nil, kafkaServerProperties(t, dir, port, logs, zkc.Connect()))
			waitServing(t, p, addr)
			checkRealData(t, addr)

			// The group resumes where Kafka's consumer left it: only records
			// written now reach it, although it would reset to the start
			// without its committed offsets.
			cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("first_topic"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			for part := int32(0); part < 3; part++ {
				if err := cl.ProduceSync(ctx, &kgo.Record{Partition: part, Value: []byte(fmt.Sprintf("after drop-in %d", part))}).FirstErr(); err != nil {
					t.Fatalf("produce: %v", err)
				}
			}
			group, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup("my-first-application"), kgo.ConsumeTopics("first_topic"),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
			if err != nil {
				t.Fatal(err)
			}
			defer group.Close()
			var got []string
			for len(got) < 3 && ctx.Err() == nil {
				group.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
					got = append(got, fmt.Sprintf("%d@%d:%s", r.Partition, r.Offset, r.Value))
				})
			}
			sort.Strings(got)
			want := []string{"0@11:after drop-in 0", "1@12:after drop-in 1", "2@18:after drop-in 2"}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("group consumed %q, want only the new records %q", got, want)
			}

			// The topic config Kafka stored applies: new_topic takes at most
			// 2000-byte batches.
			// (random bytes: the client compresses)
			big := &kgo.Record{Topic: "new_topic", Value: make([]byte, 3000)}
			_, _ = rand.Read(big.Value)
			if err := cl.ProduceSync(ctx, big).FirstErr(); err == nil || !strings.Contains(err.Error(), "MESSAGE_TOO_LARGE") {
				t.Errorf("3000-byte record to new_topic (max.message.bytes=2000): %v, want MESSAGE_TOO_LARGE", err)
			}

			// Producer ids continue after the block Kafka last took.
			resp, err := kmsg.NewPtrInitProducerIDRequest().RequestWith(ctx, cl)
			if err != nil || resp.ErrorCode != 0 || resp.ProducerID < 1000 {
				t.Errorf("InitProducerId: id %v, %v (error %v), want an id from 1000 on", resp, err, resp.ErrorCode)
			}
			if s, _ := z.get("/latest_producer_id_block"); !strings.Contains(s, `"block_start":"1000"`) {
				t.Errorf("/latest_producer_id_block = %s, want the next block from 1000", s)
			}
			cl.Close()
			group.Close()
			p.stop(t)
			checkKafkaFormatsLeft(t, logs)
		})
	}
}

// checkRealData reads the fixture's records with kcat and the committed
// offsets with the admin API.
func checkRealData(t *testing.T, addr string) {
	t.Helper()
	for tp, want := range realDataRecords {
		topic, part, _ := strings.Cut(tp, "-")
		out := kcat(t, "", "-C", "-b", addr, "-t", topic, "-p", part, "-o", "beginning", "-e", "-q", "-f", "%o:%s\n")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != want.count {
			t.Errorf("%s: kcat read %d records, want %d:\n%s", tp, len(lines), want.count, out)
			continue
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, fmt.Sprintf("%d:", i)) {
				t.Errorf("%s: record %d is %q", tp, i, l)
			}
		}
		if want.first != "" && lines[0] != "0:"+want.first {
			t.Errorf("%s: first record %q, want %q", tp, lines[0], "0:"+want.first)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, g := range []string{"my-first-application", "my-second-application", "my-firstd-application"} {
		offs, err := adm.FetchOffsets(ctx, g)
		if err != nil {
			t.Fatalf("fetch offsets of %s: %v", g, err)
		}
		for part, want := range map[int32]int64{0: 11, 1: 12, 2: 18} {
			o, ok := offs.Lookup("first_topic", part)
			if !ok || o.At != want {
				t.Errorf("%s first_topic-%d: committed %v, want %d", g, part, o.At, want)
			}
		}
	}
}

// checkKafkaFormatsLeft checks the files kafgo leaves after a clean
// shutdown in the forms a Kafka 2.x broker reads: meta.properties version
// 0 with the same ids, the three offset checkpoints, the clean-shutdown
// marker, leader epoch checkpoints.
func checkKafkaFormatsLeft(t *testing.T, logs string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(logs, name))
		if err != nil {
			t.Errorf("after kafgo: %v", err)
		}
		return string(b)
	}
	mp := read("meta.properties")
	for _, want := range []string{"version=0\n", "broker.id=0\n", "cluster.id=" + realDataClusterID + "\n"} {
		if !strings.Contains(mp, want) {
			t.Errorf("meta.properties lacks %q:\n%s", want, mp)
		}
	}
	for _, cp := range []string{"recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint"} {
		text := read(cp)
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if len(lines) < 2 || lines[0] != "0" || lines[1] != fmt.Sprint(len(lines)-2) {
			t.Errorf("%s is not a version 0 checkpoint:\n%s", cp, text)
		}
		if cp == "replication-offset-checkpoint" && !strings.Contains(text, "\nfirst_topic 0 12\n") {
			t.Errorf("%s lacks first_topic 0 12 (11 records of Kafka's and one of ours):\n%s", cp, text)
		}
	}
	if _, err := os.Stat(filepath.Join(logs, ".kafka_cleanshutdown")); err != nil {
		t.Errorf("no clean shutdown marker: %v", err)
	}
	if le := read("first_topic-0/leader-epoch-checkpoint"); !strings.HasPrefix(le, "0\n") {
		t.Errorf("leader-epoch-checkpoint %q", le)
	}
}
