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
