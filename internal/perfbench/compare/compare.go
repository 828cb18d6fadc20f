package compare

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Options shape a run.
type Options struct {
	Reps       int // interleaved repetitions of every case (>= 1)
	Records100 int // records per produce run of 100 B
	Records1K  int // records per produce run of 1 KiB
	Sizes      []int
	Partitions []int32
	Acks       []string
	// Shapes are the client shapes: "sticky" (kgo's default partitioner
	// and fetch sizes, the shape that flatters a broker most) and
	// "spread" (records spread evenly over the partitions by the
	// round-robin partitioner, as keyed records spread, the producer
	// buffering 100,000 records; consumers fetching 50 MiB, 10 MiB a
	// partition).
	Shapes []string
	// Cases, if set, keeps only the throughput cases whose name matches
	// (e.g. "100B/p6/acks=all"); LatencyRates and Replication still run
	// unless zeroed.
	Cases *regexp.Regexp
	// KafgoOnly skips kfake (for profiling kafgo under load).
	KafgoOnly bool
	// KafgoConfig holds server.properties overrides for kafgo.
	KafgoConfig map[string]string
	// Baseline, if set, is another kafgo binary (say, before a change)
	// run as a third target, "base", interleaved with the others; the
	// report adds kafgo/base ratios.
	Baseline string

	LatencyRates    []int // records/s of the end-to-end latency runs
	LatencyWarm     time.Duration
	LatencyDuration time.Duration

	// ReplicationRecords > 0 runs the 3-broker RF=3 acks=all against
	// RF=1 acks=1 comparison with that many 100 B records per run.
	ReplicationRecords int

	// Logf reports progress (t.Logf); nil is silent.
	Logf func(format string, args ...any)
}

// Full is the run make bench-compare does.
func Full() Options {
	return Options{
		Reps: 3, Records100: 1_000_000, Records1K: 250_000,
		Sizes: []int{100, 1024}, Partitions: []int32{1, 6}, Acks: []string{"1", "all"}, Shapes: []string{"sticky", "spread"},
		LatencyRates: []int{10_000, 100_000}, LatencyWarm: time.Second, LatencyDuration: 10 * time.Second,
		ReplicationRecords: 1_000_000,
	}
}

// Smoke is the CI run: every part, tiny counts.
func Smoke() Options {
	return Options{
		Reps: 1, Records100: 2000, Records1K: 500,
		Sizes: []int{100, 1024}, Partitions: []int32{1, 6}, Acks: []string{"1", "all"}, Shapes: []string{"sticky", "spread"},
		LatencyRates: []int{2000}, LatencyWarm: 100 * time.Millisecond, LatencyDuration: 300 * time.Millisecond,
		ReplicationRecords: 2000,
	}
}

// tcase is one throughput case.
type tcase struct {
	size  int
	parts int32
	acks  string
	shape string
}

func (c tcase) name() string {
	return fmt.Sprintf("%dB/p%d/acks=%s/%s", c.size, c.parts, c.acks, c.shape)
}

// Report holds every measurement of a run.
type Report struct {
	opts    Options
	targets []string
	cases   []tcase
	// produce and consume runs by case name, then target, in rep order.
	produce, consume map[string]map[string][]run
	latency          map[int]map[string][]latencies // by rate, then target
	replication      map[string][]run               // "rf3/acks=all" and "rf1/acks=1"
}

func (r *Report) add(m map[string]map[string][]run, c, target string, x run) {
	if m[c] == nil {
		m[c] = map[string][]run{}
	}
	m[c][target] = append(m[c][target], x)
}

// Run measures everything o asks for. Failures end t.
func Run(t testing.TB, o Options) *Report {
	t.Helper()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	r := &Report{opts: o, produce: map[string]map[string][]run{}, consume: map[string]map[string][]run{},
		latency: map[int]map[string][]latencies{}, replication: map[string][]run{}}
	for _, shape := range o.Shapes {
		for _, size := range o.Sizes {
			for _, parts := range o.Partitions {
				for _, acks := range o.Acks {
					c := tcase{size, parts, acks, shape}
					if o.Cases == nil || o.Cases.MatchString(c.name()) {
						r.cases = append(r.cases, c)
					}
				}
			}
		}
	}

	targets := []target{startKafgo(t, "kafgo", "", 1, o.KafgoConfig)}
	if !o.KafgoOnly {
		targets = append(targets, startKfake(t))
	}
	if o.Baseline != "" {
		targets = append(targets, startKafgo(t, "base", o.Baseline, 1, o.KafgoConfig))
	}
	for _, tg := range targets {
		r.targets = append(r.targets, tg.name)
	}
	logf("kafgo admin endpoint: http://%s", targets[0].admin)

	ctx := context.Background()
	seq := 0
	topicName := func(kind string) string { seq++; return fmt.Sprintf("bench-%s-%d", kind, seq) }
	for rep := range o.Reps {
		for _, c := range r.cases {
			for _, tg := range order(targets, rep) {
				n := o.Records100
				if c.size > 100 {
					n = o.Records1K
				}
				topic := topicName("tput")
				rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
				if err := tg.createTopic(rctx, topic, c.parts, 1, nil); err != nil {
					cancel()
					t.Fatal(err)
				}
				p, err := produce(rctx, tg.seeds, tg.pids, topic, n, c.size, c.acks, c.shape)
				if err != nil {
					cancel()
					t.Fatalf("%s %s: %v", tg.name, c.name(), err)
				}
				// The warm-up record is read back too.
				cr, err := consume(rctx, tg.seeds, tg.pids, topic, n+1, c.shape)
				if err != nil {
					cancel()
					t.Fatalf("%s %s: %v", tg.name, c.name(), err)
				}
				if err := tg.deleteTopic(rctx, topic); err != nil {
					cancel()
					t.Fatal(err)
				}
				cancel()
				r.add(r.produce, c.name(), tg.name, p)
				r.add(r.consume, c.name(), tg.name, cr)
				logf("rep %d %s %s: produce %.0f rec/s %.3f µs/rec; consume %.0f rec/s %.3f µs/rec",
					rep+1, c.name(), tg.name, p.recPerSec(), p.cpuPerRecord(), cr.recPerSec(), cr.cpuPerRecord())
			}
		}
		for _, rate := range o.LatencyRates {
			for _, tg := range order(targets, rep) {
				topic := topicName("latency")
				rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
				if err := tg.createTopic(rctx, topic, 1, 1, nil); err != nil {
					cancel()
					t.Fatal(err)
				}
				l, err := endToEnd(rctx, tg.seeds, topic, rate, o.LatencyWarm, o.LatencyDuration)
				if err != nil {
					cancel()
					t.Fatalf("%s latency at %d rec/s: %v", tg.name, rate, err)
				}
				if err := tg.deleteTopic(rctx, topic); err != nil {
					cancel()
					t.Fatal(err)
				}
				cancel()
				if r.latency[rate] == nil {
					r.latency[rate] = map[string][]latencies{}
				}
				r.latency[rate][tg.name] = append(r.latency[rate][tg.name], l)
				logf("rep %d latency %d rec/s %s: p50 %v p99 %v p99.9 %v max %v", rep+1, rate, tg.name,
					percentile(l.Delays, 0.5), percentile(l.Delays, 0.99), percentile(l.Delays, 0.999), percentile(l.Delays, 1))
			}
		}
	}
	if o.ReplicationRecords > 0 {
		r.runReplication(t, o, logf)
	}
	return r
}

// runReplication compares, on a 3-broker cluster, acks=all to an RF=3
// topic (min.insync.replicas=2) with acks=1 to an RF=1 topic, 6 partitions
// and 100 B records each, interleaved; the CPU is the three brokers'.
func (r *Report) runReplication(t testing.TB, o Options, logf func(string, ...any)) {
	cfg := map[string]string{"min.insync.replicas": "2"}
	for k, v := range o.KafgoConfig {
		cfg[k] = v
	}
	tg := startKafgo(t, "kafgo-3", "", 3, cfg)
	ctx := context.Background()
	for rep := range o.Reps {
		for _, c := range replicationOrder(rep) {
			topic := fmt.Sprintf("bench-repl-%d-%s", rep, strings.ReplaceAll(c.name, "/", "-"))
			topic = strings.ReplaceAll(topic, "=", "")
			rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
			if err := tg.createTopic(rctx, topic, 6, c.rf, nil); err != nil {
				cancel()
				t.Fatal(err)
			}
			p, err := produce(rctx, tg.seeds, tg.pids, topic, o.ReplicationRecords, 100, c.acks, "sticky")
			if err != nil {
				cancel()
				t.Fatalf("%s: %v", c.name, err)
			}
			if err := tg.deleteTopic(rctx, topic); err != nil {
				cancel()
				t.Fatal(err)
			}
			cancel()
			r.replication[c.name] = append(r.replication[c.name], p)
			logf("rep %d replication %s: %.0f rec/s %.3f µs/rec (3 brokers)", rep+1, c.name, p.recPerSec(), p.cpuPerRecord())
		}
	}
}

type replCase struct {
	name string
	rf   int16
	acks string
}

// replicationOrder alternates which case goes first.
func replicationOrder(rep int) []replCase {
	a := replCase{"rf3/acks=all", 3, "all"}
	b := replCase{"rf1/acks=1", 1, "1"}
	if rep%2 == 1 {
		return []replCase{b, a}
	}
	return []replCase{a, b}
}

// order alternates which target goes first, so neither always runs on a
// machine the other just warmed (page cache, CPU frequency).
func order(ts []target, rep int) []target {
	if len(ts) < 2 || rep%2 == 0 {
		return ts
	}
	out := make([]target, len(ts))
	for i := range ts {
		out[i] = ts[len(ts)-1-i]
	}
	return out
}

// Markdown renders the report as tables.
func (r *Report) Markdown() string {
	var b strings.Builder
	peer := ""
	if len(r.targets) > 1 {
		peer = r.targets[1]
	}
	fmt.Fprintf(&b, "Interleaved runs, %d rep(s), medians; ratio = median of per-rep kafgo/%s ratios; µs/rec = broker CPU (utime+stime) per record.\n\n", r.opts.Reps, or(peer, "peer"))
	base := slices.Contains(r.targets, "base")
	fmt.Fprintf(&b, "| case | kafgo rec/s | %s rec/s | ratio | kafgo µs/rec | %s µs/rec |", or(peer, "peer"), or(peer, "peer"))
	if base {
		b.WriteString(" base rec/s | kafgo/base | base µs/rec |")
	}
	b.WriteString("\n|---|---:|---:|---:|---:|---:|")
	if base {
		b.WriteString("---:|---:|---:|")
	}
	b.WriteString("\n")
	for _, kind := range []struct {
		name string
		m    map[string]map[string][]run
	}{{"produce", r.produce}, {"consume", r.consume}} {
		for _, c := range r.cases {
			byT := kind.m[c.name()]
			k := byT["kafgo"]
			f := byT[peer]
			fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s | %s |", kind.name, c.name(),
				fmtRate(median(rates(k))), fmtRate(median(rates(f))), fmtRatio(median(ratios(rates(k), rates(f)))),
				fmtUs(median(cpus(k))), fmtUs(median(cpus(f))))
			if base {
				bs := byT["base"]
				fmt.Fprintf(&b, " %s | %s | %s |", fmtRate(median(rates(bs))), fmtRatio(median(ratios(rates(k), rates(bs)))), fmtUs(median(cpus(bs))))
			}
			b.WriteString("\n")
		}
	}
	if len(r.latency) > 0 {
		b.WriteString("\nEnd-to-end latency (send to receipt, 1 partition, 100 B, acks=all idempotent, linger 0), median over reps of each percentile:\n\n")
		b.WriteString("| rate | target | p50 ms | p99 ms | p99.9 ms | max ms |\n|---:|---|---:|---:|---:|---:|\n")
		for _, rate := range r.opts.LatencyRates {
			for _, tg := range r.targets {
				ls := r.latency[rate][tg]
				q := func(p float64) string {
					var xs []float64
					for _, l := range ls {
						xs = append(xs, float64(percentile(l.Delays, p))/1e6)
					}
					return fmt.Sprintf("%.2f", median(xs))
				}
				fmt.Fprintf(&b, "| %s/s | %s | %s | %s | %s | %s |\n", fmtRate(float64(rate)), tg, q(0.5), q(0.99), q(0.999), q(1))
			}
		}
	}
	if len(r.replication) > 0 {
		all, one := r.replication["rf3/acks=all"], r.replication["rf1/acks=1"]
		b.WriteString("\n3 kafgo brokers (ZooKeeper), 6 partitions, 100 B; µs/rec = the three brokers' CPU per record:\n\n")
		b.WriteString("| case | rec/s | µs/rec |\n|---|---:|---:|\n")
		fmt.Fprintf(&b, "| RF=3 acks=all (min.insync.replicas=2) | %s | %s |\n", fmtRate(median(rates(all))), fmtUs(median(cpus(all))))
		fmt.Fprintf(&b, "| RF=1 acks=1 | %s | %s |\n", fmtRate(median(rates(one))), fmtUs(median(cpus(one))))
		fmt.Fprintf(&b, "| ratio RF=3 acks=all / RF=1 acks=1 | %s | |\n", fmtRatio(median(ratios(rates(all), rates(one)))))
	}
	return b.String()
}

func rates(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, x := range rs {
		out[i] = x.recPerSec()
	}
	return out
}

func cpus(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, x := range rs {
		out[i] = x.cpuPerRecord()
	}
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func fmtRate(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.0fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

func fmtUs(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}
