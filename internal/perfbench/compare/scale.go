package compare

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ScaleOptions shape the many-clients run (issue 23): C concurrent
// clients, half idempotent acks=all producers at 1 record/s each, half
// consumers in groups of 2.5 (C/5 groups) long-polling a 64-partition
// topic with the given fetch.min.bytes and fetch.max.wait 500 ms; a probe
// producer beside them measures acknowledgement latency.
type ScaleOptions struct {
	Reps       int
	Clients    []int   // C values
	MinBytes   []int32 // fetch.min.bytes values
	Partitions int32
	// Settle is how long the clients run, connected, before the probe
	// starts; Measure is the probe's (and the CPU window's) length.
	Settle, Measure time.Duration
	ProbeEvery      time.Duration // one probe record per interval
	// ConnectTimeout bounds connecting every client and every group
	// becoming stable.
	ConnectTimeout time.Duration
	KafgoOnly      bool
	KafgoConfig    map[string]string
	Baseline       string // another kafgo binary as a third target
	Logf           func(format string, args ...any)
}

// FullScale is what make bench-scale runs.
func FullScale() ScaleOptions {
	return ScaleOptions{
		Reps: 3, Clients: []int{500, 2000, 5000}, MinBytes: []int32{1, 1 << 20}, Partitions: 64,
		Settle: 5 * time.Second, Measure: 20 * time.Second, ProbeEvery: 10 * time.Millisecond,
		ConnectTimeout: 3 * time.Minute,
	}
}

// SmokeScale checks the run works: few clients, short windows.
func SmokeScale() ScaleOptions {
	return ScaleOptions{
		Reps: 1, Clients: []int{20}, MinBytes: []int32{1 << 20}, Partitions: 8,
		Settle: 500 * time.Millisecond, Measure: 2 * time.Second, ProbeEvery: 10 * time.Millisecond,
		ConnectTimeout: time.Minute,
	}
}

// scaleCase is one (C, fetch.min.bytes) pair.
type scaleCase struct {
	clients  int
	minBytes int32
}

func (c scaleCase) name() string { return fmt.Sprintf("C=%d/min.bytes=%d", c.clients, c.minBytes) }

// scaleRun is one measured run against one target.
type scaleRun struct {
	Connect time.Duration // every producer acknowledged once, every consumer assigned
	Probe   []time.Duration
	Sent    int   // probe records sent in the window
	Errors  int64 // failed produces (all clients) and fetch errors in the window
	CPU     time.Duration
	// ClientCPU is the load generator's own CPU (this process): near the
	// machine's cores, the clients, not the broker, set the latency.
	ClientCPU time.Duration
	Window    time.Duration
	RSS       int64 // broker RSS at the end of the window, bytes
	RSS0      int64 // before the clients connected
	Conns     int   // broker sockets open at the end of the window
	// RTT is each probe Produce's round trip as the client saw it (write
	// to last byte of the answer read), WriteWait how long it waited in
	// the client before being written: the probe's latency less these is
	// the client's own queueing.
	RTT, WriteWait []time.Duration
}

// produceRTT is a kgo hook recording the probe's Produce round trips.
type produceRTT struct {
	on        atomic.Bool
	mu        sync.Mutex
	rtt, wait []time.Duration
}

func (h *produceRTT) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if key != 0 || !h.on.Load() || e.Err() != nil {
		return
	}
	h.mu.Lock()
	h.rtt = append(h.rtt, e.DurationE2E())
	h.wait = append(h.wait, e.WriteWait)
	h.mu.Unlock()
}

func (h *produceRTT) sorted() (rtt, wait []time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rtt, wait = slices.Clone(h.rtt), slices.Clone(h.wait)
	slices.Sort(rtt)
	slices.Sort(wait)
	return rtt, wait
}

func (r scaleRun) cpuShare() float64 { return r.CPU.Seconds() / r.Window.Seconds() }

func (r scaleRun) rssPerConn() float64 {
	if r.Conns == 0 {
		return 0
	}
	return float64(r.RSS-r.RSS0) / float64(r.Conns)
}

// ScaleReport holds every measurement of a scale run.
type ScaleReport struct {
	opts    ScaleOptions
	targets []string
	cases   []scaleCase
	runs    map[string]map[string][]scaleRun // by case name, then target
}

// RaiseFileLimit lifts the soft RLIMIT_NOFILE to the hard limit (brokers
// started afterwards inherit it) and returns the limit now in force.
func RaiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	l.Cur = l.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	return l.Cur, nil
}

// RunScale measures every case of o on each target, repetitions
// interleaved (the first target alternates).
func RunScale(t testing.TB, o ScaleOptions) *ScaleReport {
	t.Helper()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if lim, err := RaiseFileLimit(); err != nil {
		t.Fatalf("scale: raising the file limit: %v", err)
	} else {
		logf("RLIMIT_NOFILE raised to %d (inherited by the brokers)", lim)
	}
	r := &ScaleReport{opts: o, runs: map[string]map[string][]scaleRun{}}
	for _, c := range o.Clients {
		for _, mb := range o.MinBytes {
			r.cases = append(r.cases, scaleCase{c, mb})
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
	seq := 0
	for rep := range o.Reps {
		for _, c := range r.cases {
			for _, tg := range order(targets, rep) {
				seq++
				topic := fmt.Sprintf("scale-%d", seq)
				x, err := scaleOnce(context.Background(), tg, topic, seq, c, o)
				if err != nil {
					t.Fatalf("scale %s on %s: %v", c.name(), tg.name, err)
				}
				if r.runs[c.name()] == nil {
					r.runs[c.name()] = map[string][]scaleRun{}
				}
				r.runs[c.name()][tg.name] = append(r.runs[c.name()][tg.name], x)
				logf("rep %d %s %s: connect %v, probe p50 %v p99 %v p99.9 %v (%d sent; Produce round trip p50 %v p99 %v, client wait p50 %v p99 %v), errors %d, CPU %.0f%% (clients %.0f%%), %d conns, RSS %.1f MiB (%.1f KiB/conn)",
					rep+1, c.name(), tg.name, x.Connect.Round(time.Millisecond),
					percentile(x.Probe, 0.5), percentile(x.Probe, 0.99), percentile(x.Probe, 0.999), x.Sent,
					percentile(x.RTT, 0.5), percentile(x.RTT, 0.99), percentile(x.WriteWait, 0.5), percentile(x.WriteWait, 0.99),
					x.Errors, 100*x.cpuShare(), 100*x.ClientCPU.Seconds()/x.Window.Seconds(), x.Conns, float64(x.RSS)/(1<<20), x.rssPerConn()/1024)
			}
		}
	}
	return r
}

// scaleOnce runs one case against one target: connect the clients, let
// them settle, measure the probe, the errors and the broker's CPU over the
// window, then close everything and delete the topic.
func scaleOnce(ctx context.Context, tg target, topic string, seq int, c scaleCase, o ScaleOptions) (scaleRun, error) {
	ctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout+o.Settle+o.Measure+5*time.Minute)
	defer cancel()
	if err := tg.createTopic(ctx, topic, o.Partitions, 1, nil); err != nil {
		return scaleRun{}, err
	}
	quiesce(tg.pids, 10*time.Second)
	var x scaleRun
	x.RSS0 = rssOf(tg.pids)

	var (
		errs      atomic.Int64
		measuring atomic.Bool
		firstErr  atomic.Value
	)
	countErr := func(err error) {
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed) {
			return
		}
		if measuring.Load() {
			errs.Add(1)
			firstErr.CompareAndSwap(nil, err.Error())
		}
	}

	nProd := c.clients / 2
	nCons := c.clients - nProd
	groups := max(1, c.clients/5)
	var (
		ready   sync.WaitGroup
		clients = make([]*kgo.Client, 0, c.clients)
		cmu     sync.Mutex
		stop    = make(chan struct{})
		bg      sync.WaitGroup
	)
	ready.Add(nProd + nCons)
	start := time.Now()
	// Clients are created by a bounded pool, as many applications start:
	// a storm, but not one that exhausts the test process.
	sem := make(chan struct{}, 200)
	var createErr atomic.Value
	for i := range nProd + nCons {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			var cl *kgo.Client
			var err error
			if i < nProd {
				cl, err = kgo.NewClient(kgo.SeedBrokers(tg.seeds...), kgo.DefaultProduceTopic(topic),
					kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
			} else {
				var once sync.Once
				cl, err = kgo.NewClient(kgo.SeedBrokers(tg.seeds...), kgo.ConsumeTopics(topic),
					kgo.ConsumerGroup(fmt.Sprintf("scale-%d-g%d", seq, i%groups)),
					kgo.FetchMinBytes(c.minBytes), kgo.FetchMaxWait(500*time.Millisecond),
					kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { once.Do(ready.Done) }))
			}
			if err != nil {
				createErr.CompareAndSwap(nil, err)
				ready.Done()
				return
			}
			cmu.Lock()
			clients = append(clients, cl)
			cmu.Unlock()
			bg.Add(1)
			if i < nProd {
				go runProducer(cl, stop, &bg, &ready, countErr)
			} else {
				go runConsumer(cl, stop, &bg, countErr)
			}
		}()
	}
	closeAll := func() {
		close(stop)
		cmu.Lock()
		all := slices.Clone(clients)
		cmu.Unlock()
		var wg sync.WaitGroup
		for _, cl := range all {
			wg.Add(1)
			go func() { defer wg.Done(); cl.Close() }()
		}
		wg.Wait()
		bg.Wait()
	}
	allReady := make(chan struct{})
	go func() { ready.Wait(); close(allReady) }()
	select {
	case <-allReady:
	case <-time.After(o.ConnectTimeout):
		closeAll()
		return scaleRun{}, fmt.Errorf("not every client connected within %v", o.ConnectTimeout)
	}
	if err, _ := createErr.Load().(error); err != nil {
		closeAll()
		return scaleRun{}, err
	}
	x.Connect = time.Since(start)
	time.Sleep(o.Settle)

	rtt := &produceRTT{}
	probe, err := kgo.NewClient(kgo.SeedBrokers(tg.seeds...), kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.WithHooks(rtt))
	if err != nil {
		closeAll()
		return scaleRun{}, err
	}
	if err := probe.ProduceSync(ctx, &kgo.Record{Value: []byte("warm")}).FirstErr(); err != nil {
		probe.Close()
		closeAll()
		return scaleRun{}, fmt.Errorf("probe warm-up: %w", err)
	}
	measuring.Store(true)
	rtt.on.Store(true)
	cpu0, err := cpuOf(tg.pids)
	if err != nil {
		probe.Close()
		closeAll()
		return scaleRun{}, err
	}
	self0, _ := cpuOf([]int{os.Getpid()})
	t0 := time.Now()
	var (
		pmu    sync.Mutex
		pwg    sync.WaitGroup
		value  = make([]byte, 100)
		ticker = time.NewTicker(o.ProbeEvery)
	)
	for time.Since(t0) < o.Measure {
		<-ticker.C
		sent := time.Now()
		pwg.Add(1)
		x.Sent++
		probe.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			d := time.Since(sent)
			countErr(err)
			pmu.Lock()
			x.Probe = append(x.Probe, d)
			pmu.Unlock()
			pwg.Done()
		})
	}
	ticker.Stop()
	pwg.Wait()
	x.Window = time.Since(t0)
	cpu1, err := cpuOf(tg.pids)
	if err != nil {
		probe.Close()
		closeAll()
		return scaleRun{}, err
	}
	x.CPU = cpu1 - cpu0
	self1, _ := cpuOf([]int{os.Getpid()})
	x.ClientCPU = self1 - self0
	rtt.on.Store(false)
	x.RTT, x.WriteWait = rtt.sorted()
	x.RSS = rssOf(tg.pids)
	x.Conns = socketsOf(tg.pids)
	measuring.Store(false)
	x.Errors = errs.Load()
	if e, _ := firstErr.Load().(string); e != "" && o.Logf != nil {
		o.Logf("%s %s: first error in the window: %s", tg.name, c.name(), e)
	}
	probe.Close()
	closeAll()
	slices.Sort(x.Probe)
	if err := tg.deleteTopic(ctx, topic); err != nil {
		return scaleRun{}, err
	}
	return x, nil
}

// runProducer produces one record a second, starting at a random phase so
// the producers' load is spread evenly over each second.
func runProducer(cl *kgo.Client, stop <-chan struct{}, bg, ready *sync.WaitGroup, countErr func(error)) {
	defer bg.Done()
	var once sync.Once
	value := make([]byte, 100)
	select {
	case <-time.After(time.Duration(rand.Int64N(int64(time.Second)))):
	case <-stop:
		once.Do(ready.Done)
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		cl.Produce(context.Background(), &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			countErr(err)
			if err == nil {
				once.Do(ready.Done)
			}
		})
		select {
		case <-t.C:
		case <-stop:
			once.Do(ready.Done)
			return
		}
	}
}

// runConsumer polls until stopped, counting fetch errors.
func runConsumer(cl *kgo.Client, stop <-chan struct{}, bg *sync.WaitGroup, countErr func(error)) {
	defer bg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-stop; cancel() }()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		if fs.IsClientClosed() {
			return
		}
		fs.EachError(func(_ string, _ int32, err error) { countErr(err) })
	}
}

// rssOf sums VmRSS of pids, in bytes (0 where unreadable).
func rssOf(pids []int) int64 {
	var total int64
	for _, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			continue
		}
		if st, err := p.NewStatus(); err == nil {
			total += int64(st.VmRSS)
		}
	}
	return total
}

// socketsOf counts the sockets pids hold open.
func socketsOf(pids []int) int {
	n := 0
	for _, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			continue
		}
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			continue
		}
		for _, t := range targets {
			if strings.HasPrefix(t, "socket:") {
				n++
			}
		}
	}
	return n
}

// Markdown renders the scale report: per case, each target's medians and
// the kafgo/kfake ratio of the probe's p99 (median of per-rep ratios).
func (r *ScaleReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Many clients (%d reps interleaved; %d partitions; producers 1 rec/s idempotent acks=all, consumers in groups of 2.5, fetch.max.wait 500 ms; probe %v apart)\n\n",
		r.opts.Reps, r.opts.Partitions, r.opts.ProbeEvery)
	b.WriteString("| case | target | connect | probe p50 | p99 | p99.9 | errors | broker CPU | conns | RSS/conn |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.cases {
		for _, tg := range r.targets {
			rs := r.runs[c.name()][tg]
			var conn, p50, p99, p999, cpu, rpc []float64
			var errs int64
			var conns int
			for _, x := range rs {
				conn = append(conn, x.Connect.Seconds())
				p50 = append(p50, ms(percentile(x.Probe, 0.5)))
				p99 = append(p99, ms(percentile(x.Probe, 0.99)))
				p999 = append(p999, ms(percentile(x.Probe, 0.999)))
				cpu = append(cpu, 100*x.cpuShare())
				rpc = append(rpc, x.rssPerConn()/1024)
				errs += x.Errors
				conns = x.Conns
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f s | %.2f ms | %.2f ms | %.2f ms | %d | %.0f %% | %d | %.1f KiB |\n",
				c.name(), tg, median(conn), median(p50), median(p99), median(p999), errs, median(cpu), conns, median(rpc))
		}
		if len(r.targets) > 1 {
			fmt.Fprintf(&b, "| %s | kafgo/kfake p99 | | | %s | | | CPU %s | | |\n", c.name(),
				fmtRatio(median(ratios(r.p99s(c, "kafgo"), r.p99s(c, "kfake")))),
				fmtRatio(median(ratios(r.cpus(c, "kafgo"), r.cpus(c, "kfake")))))
		}
	}
	return b.String()
}

func (r *ScaleReport) p99s(c scaleCase, tg string) []float64 {
	var out []float64
	for _, x := range r.runs[c.name()][tg] {
		out = append(out, ms(percentile(x.Probe, 0.99)))
	}
	return out
}

func (r *ScaleReport) cpus(c scaleCase, tg string) []float64 {
	var out []float64
	for _, x := range r.runs[c.name()][tg] {
		out = append(out, x.cpuShare())
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
