package compare

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

var (
	scaleFull     = flag.Bool("scale.full", false, "run the full many-clients benchmark (make bench-scale) rather than the smoke run")
	scaleReps     = flag.Int("scale.reps", 0, "override the number of interleaved repetitions")
	scaleClients  = flag.String("scale.clients", "", "comma-separated client counts (e.g. 500,2000)")
	scaleMinBytes = flag.String("scale.min-bytes", "", "comma-separated fetch.min.bytes values (e.g. 1,1048576)")
	scaleOut      = flag.String("scale.out", "", "also write the Markdown report to this file")
	scaleMeasure  = flag.Duration("scale.measure", 0, "override the measuring window (e.g. 60s, to take a profile)")
)

// TestScale runs the many-clients benchmark: the smoke run by default
// (checks that it runs and that nothing fails), the measured run with
// -scale.full. Latency is reported, never asserted.
func TestScale(t *testing.T) {
	o := SmokeScale()
	if *scaleFull && !testing.Short() {
		o = FullScale()
	}
	if *scaleReps > 0 {
		o.Reps = *scaleReps
	}
	if *scaleMeasure > 0 {
		o.Measure = *scaleMeasure
	}
	if *scaleClients != "" {
		o.Clients = nil
		for _, s := range strings.Split(*scaleClients, ",") {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("-scale.clients: %v", err)
			}
			o.Clients = append(o.Clients, n)
		}
	}
	if *scaleMinBytes != "" {
		o.MinBytes = nil
		for _, s := range strings.Split(*scaleMinBytes, ",") {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				t.Fatalf("-scale.min-bytes: %v", err)
			}
			o.MinBytes = append(o.MinBytes, int32(n))
		}
	}
	o.KafgoOnly = *kafgoOnly
	o.Baseline = *baseline
	o.KafgoConfig = map[string]string{}
	if *pprof {
		o.KafgoConfig["admin.pprof.enable"] = "true"
	}
	for _, kv := range strings.Split(*override, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			o.KafgoConfig[k] = v
		}
	}
	if os.Getenv("KAFGO_TEST_LOG_LEVEL") == "" {
		t.Setenv("KAFGO_TEST_LOG_LEVEL", "warn")
	}
	o.Logf = t.Logf
	r := RunScale(t, o)
	for _, c := range r.cases {
		for _, tg := range r.targets {
			rs := r.runs[c.name()][tg]
			if len(rs) != o.Reps {
				t.Errorf("%s %s: %d runs, want %d", c.name(), tg, len(rs), o.Reps)
			}
			for _, x := range rs {
				if len(x.Probe) == 0 || len(x.Probe) != x.Sent {
					t.Errorf("%s %s: %d probe latencies of %d sent", c.name(), tg, len(x.Probe), x.Sent)
				}
			}
		}
	}
	md := r.Markdown()
	fmt.Println(md)
	if *scaleOut != "" {
		if err := os.WriteFile(*scaleOut, []byte(md), 0o644); err != nil {
			t.Error(err)
		}
	}
}

var stormGroups = flag.Int("storm.groups", 0, "run TestGroupStorm with this many groups (0: a smoke run of 20)")

// TestGroupStorm: groups of one member each, all joining at once (issue
// 23 item 5); the time until every one is stable, kafgo and kfake.
func TestGroupStorm(t *testing.T) {
	n := *stormGroups
	reps := 3
	if n == 0 || testing.Short() {
		n, reps = 20, 1
	}
	if os.Getenv("KAFGO_TEST_LOG_LEVEL") == "" {
		t.Setenv("KAFGO_TEST_LOG_LEVEL", "warn")
	}
	res := GroupStorm(t, n, reps, *kafgoOnly, t.Logf)
	for tg, ds := range res {
		var secs []float64
		for _, d := range ds {
			secs = append(secs, d.Seconds())
		}
		t.Logf("%s: %d groups stable, median %.2f s", tg, n, median(secs))
	}
}

var (
	partsN        = flag.Int("partitions.n", 0, "TestPartitionScale: this many partitions (0: a smoke run of 200)")
	partsBrokers  = flag.Int("partitions.brokers", 1, "TestPartitionScale: brokers (1: embedded store; more: ZooKeeper)")
	partsRF       = flag.Int("partitions.rf", 1, "TestPartitionScale: replication factor")
	partsPerTopic = flag.Int("partitions.per-topic", 100, "TestPartitionScale: partitions per topic")
	partsOut      = flag.String("partitions.out", "", "also write the Markdown report to this file")
)

// TestPartitionScale: many partitions on one broker or a ZooKeeper
// cluster (issue 23): creation, Metadata, a record to every partition,
// memory and files, clean and kill -9 restarts, and with several brokers a
// controller kill -9. Measured, not asserted.
func TestPartitionScale(t *testing.T) {
	o := PartitionOptions{Partitions: *partsN, PerTopic: *partsPerTopic, Brokers: *partsBrokers, RF: int16(*partsRF), Failover: *partsBrokers > 1}
	if o.Partitions == 0 || testing.Short() {
		o.Partitions, o.PerTopic = 200, 50
	}
	if os.Getenv("KAFGO_TEST_LOG_LEVEL") == "" {
		t.Setenv("KAFGO_TEST_LOG_LEVEL", "warn")
	}
	o.Logf = t.Logf
	r := RunPartitions(t, o)
	md := r.Markdown()
	fmt.Println(md)
	if *partsOut != "" {
		if err := os.WriteFile(*partsOut, []byte(md), 0o644); err != nil {
			t.Error(err)
		}
	}
}
