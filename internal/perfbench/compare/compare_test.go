package compare

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

var (
	full      = flag.Bool("compare.full", false, "run the full benchmark (make bench-compare) rather than the smoke run")
	reps      = flag.Int("compare.reps", 0, "override the number of interleaved repetitions")
	cases     = flag.String("compare.cases", "", "regexp: only the throughput cases whose name matches (e.g. 'p6/acks=all')")
	kafgoOnly = flag.Bool("compare.kafgo-only", false, "skip kfake (to profile kafgo under load)")
	noExtra   = flag.Bool("compare.throughput-only", false, "skip the latency and replication runs")
	skip      = flag.String("compare.skip", "", "comma-separated parts to skip: throughput, latency, replication")
	pprof     = flag.Bool("compare.pprof", false, "serve /debug/pprof on kafgo's admin endpoint (its address is logged)")
	baseline  = flag.String("compare.baseline", "", "another kafgo binary to run as a third target (before/after ratios in one run)")
	override  = flag.String("compare.kafgo-config", "", "comma-separated key=value server.properties overrides for kafgo")
	out       = flag.String("compare.out", "", "also write the Markdown report to this file")
)

// TestCompare runs the side-by-side benchmark: by default (and with
// -short) the smoke run, which checks that every part runs and counts
// what it should; with -compare.full the measured run. Nothing is asserted
// about speed.
func TestCompare(t *testing.T) {
	o := Smoke()
	if *full && !testing.Short() {
		o = Full()
	}
	if *reps > 0 {
		o.Reps = *reps
	}
	if *cases != "" {
		o.Cases = regexp.MustCompile(*cases)
	}
	if *noExtra {
		o.LatencyRates, o.ReplicationRecords = nil, 0
	}
	for _, part := range strings.Split(*skip, ",") {
		switch part {
		case "throughput":
			o.Cases = regexp.MustCompile("^$")
		case "latency":
			o.LatencyRates = nil
		case "replication":
			o.ReplicationRecords = 0
		case "":
		default:
			t.Fatalf("-compare.skip: unknown part %q", part)
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
	r := Run(t, o)

	// The smoke checks: every case and target has its runs, with the
	// records it asked for.
	for _, c := range r.cases {
		for _, tg := range r.targets {
			for kind, m := range map[string]map[string]map[string][]run{"produce": r.produce, "consume": r.consume} {
				rs := m[c.name()][tg]
				if len(rs) != o.Reps {
					t.Errorf("%s %s %s: %d runs, want %d", kind, c.name(), tg, len(rs), o.Reps)
				}
				for _, x := range rs {
					if x.Records <= 0 || x.Elapsed <= 0 {
						t.Errorf("%s %s %s: run %+v", kind, c.name(), tg, x)
					}
				}
			}
		}
	}
	for _, rate := range o.LatencyRates {
		for _, tg := range r.targets {
			for _, l := range r.latency[rate][tg] {
				if len(l.Delays) == 0 || len(l.Delays) > l.Sent {
					t.Errorf("latency %d %s: %d delays of %d sent", rate, tg, len(l.Delays), l.Sent)
				}
			}
		}
	}
	if o.ReplicationRecords > 0 && (len(r.replication["rf3/acks=all"]) != o.Reps || len(r.replication["rf1/acks=1"]) != o.Reps) {
		t.Errorf("replication runs: %v", r.replication)
	}
	md := r.Markdown()
	fmt.Println(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func TestProcCPU(t *testing.T) {
	// A command name with a space and a parenthesis, as /proc shows it;
	// utime 250 and stime 125 ticks of 1/100 s.
	dir := t.TempDir()
	line := "4242 (kafgo (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 125 0 0 20 0 12 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	if err := os.MkdirAll(filepath.Join(dir, "4242"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "4242", "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := procfs.NewFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := procCPU(fs, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3750 * time.Millisecond; got != want {
		t.Errorf("cpu %v, want %v", got, want)
	}
	if _, err := procCPU(fs, 4243); err == nil {
		t.Error("a missing process gave a CPU time")
	}
	self, err := cpuTime(os.Getpid())
	if err != nil || self < 0 {
		t.Errorf("own CPU time %v, %v", self, err)
	}
	if rss := rssOf([]int{os.Getpid()}); rss <= 0 {
		t.Errorf("own RSS %d", rss)
	}
}

func TestMedianRatiosPercentile(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median even %v", m)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is a number")
	}
	// The median of per-rep ratios, not the ratio of medians.
	if m := median(ratios([]float64{10, 20, 30}, []float64{10, 10, 60})); m != 1 {
		t.Errorf("median ratio %v", m)
	}
	var d []time.Duration
	for i := 1; i <= 1000; i++ {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500}, {0.99, 990}, {0.999, 999}, {1, 1000}} {
		if got := percentile(d, c.q); got != c.want {
			t.Errorf("p%v = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestMarkdownRendersEveryCase(t *testing.T) {
	r := &Report{opts: Options{Reps: 1, LatencyRates: []int{10_000}}, targets: []string{"kafgo", "kfake"},
		cases:   []tcase{{100, 6, "all", "spread"}},
		produce: map[string]map[string][]run{"100B/p6/acks=all/spread": {"kafgo": {{Records: 100, Elapsed: time.Second, CPU: 10 * time.Microsecond}}, "kfake": {{Records: 50, Elapsed: time.Second}}}},
		consume: map[string]map[string][]run{},
		latency: map[int]map[string][]latencies{10_000: {"kafgo": {{Sent: 2, Delays: []time.Duration{time.Millisecond, 2 * time.Millisecond}}}}},
	}
	md := r.Markdown()
	for _, want := range []string{"| produce 100B/p6/acks=all/spread | 100 | 50 | 2.00 | 0.10 | 0.00 |", "| 10k/s | kafgo | 1.00 | 2.00 | 2.00 | 2.00 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
