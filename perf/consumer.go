package perf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/javanum"
)

// ConsumerOptions are the flags of `kafgo perf consume`.
type ConsumerOptions struct {
	Topic   string
	Include string
	// Messages is how many records to consume.
	Messages int64
	// Timeout is the longest gap between returned records (default 10 s).
	Timeout           time.Duration
	ReportingInterval time.Duration // default 5 s
	ShowDetailedStats bool
	HideHeader        bool
	DateFormat        string // SimpleDateFormat pattern
	PrintMetrics      bool
	JSON              bool
	// Location renders dates; nil is the local time zone.
	Location *time.Location
}

// Validate applies ConsumerPerformance's checks.
func (o *ConsumerOptions) Validate() error {
	if (o.Topic == "") == (o.Include == "") {
		return errors.New("Exactly one of the options --topic or --include must be specified.")
	}
	if o.Messages <= 0 {
		return errors.New(`Missing required argument "[messages]"`)
	}
	return nil
}

// ConsumerSummary is the one line of a basic run.
type ConsumerSummary struct {
	StartTime           string             `json:"start_time"`
	EndTime             string             `json:"end_time"`
	MB                  float64            `json:"mb"`
	MBPerSec            float64            `json:"mb_per_sec"`
	Messages            int64              `json:"messages"`
	MessagesPerSec      float64            `json:"messages_per_sec"`
	RebalanceMs         int64              `json:"rebalance_ms"`
	FetchMs             int64              `json:"fetch_ms"`
	FetchMBPerSec       float64            `json:"fetch_mb_per_sec"`
	FetchMessagesPerSec float64            `json:"fetch_messages_per_sec"`
	TimedOut            bool               `json:"timed_out"`
	Bytes               int64              `json:"bytes"`
	Metrics             map[string]float64 `json:"metrics,omitempty"`
}

const (
	basicHeader    = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	detailedHeader = "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	mib            = 1024.0 * 1024.0
)

// joinTimer accumulates time spent in rebalances the way Kafka's
// ConsumerPerformance listener does: from a revocation (or the start) to
// the next assignment. kgo runs the callbacks on its own goroutine.
type joinTimer struct {
	mu        sync.Mutex
	joinStart time.Time
	total     time.Duration
	round     time.Duration
}

func (j *joinTimer) revoked() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.joinStart = time.Now()
}

func (j *joinTimer) assigned() {
	j.mu.Lock()
	defer j.mu.Unlock()
	d := time.Since(j.joinStart)
	j.total += d
	j.round += d
}

// takeRound returns the join time since the last call.
func (j *joinTimer) takeRound() time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	d := j.round
	j.round = 0
	return d
}

func (j *joinTimer) totalTime() time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.total
}

// PrepareConsumerConfig applies the tool's defaults to c, as Kafka's tool
// does before building its consumer: a random perf-consumer-NNNNN group,
// client.id perf-consumer-client, and earliest unless fromLatest.
func PrepareConsumerConfig(c *cliutil.Config, group string, fetchSize int64, fromLatest bool) {
	if group != "" {
		c.Set("group.id", group)
	}
	c.SetDefault("group.id", fmt.Sprintf("perf-consumer-%d", rand.IntN(100000)))
	c.SetDefault("client.id", "perf-consumer-client")
	if fetchSize > 0 {
		c.Set("max.partition.fetch.bytes", fmt.Sprint(fetchSize))
	}
	if fromLatest {
		c.Set("auto.offset.reset", "latest")
	} else {
		c.SetDefault("auto.offset.reset", "earliest")
	}
}

// RunConsumer runs the consumer benchmark with the Java consumer config c
// and prints Kafka's header and line(s) on out, or one JSON object.
func RunConsumer(ctx context.Context, c *cliutil.Config, o ConsumerOptions, out, errOut io.Writer) (ConsumerSummary, error) {
	var sum ConsumerSummary
	if err := o.Validate(); err != nil {
		return sum, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.ReportingInterval <= 0 {
		o.ReportingInterval = 5 * time.Second
	}
	if o.DateFormat == "" {
		o.DateFormat = DefaultDateFormat
	}
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	df, err := parseDateFormat(o.DateFormat, loc)
	if err != nil {
		return sum, err
	}
	opts, set, err := cliutil.ConsumerOpts(c)
	if err != nil {
		return sum, err
	}
	clientID, _ := c.Peek("client.id")
	jt := &joinTimer{}
	metrics := &clientMetrics{}
	opts = append(opts, kgo.WithHooks(metrics))
	if o.Include != "" {
		opts = append(opts, kgo.ConsumeRegex(), kgo.ConsumeTopics("^(?:"+o.Include+")$"))
	} else {
		opts = append(opts, kgo.ConsumeTopics(o.Topic))
	}
	if set.Group != "" {
		opts = append(opts,
			kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { jt.assigned() }),
			kgo.OnPartitionsRevoked(func(context.Context, *kgo.Client, map[string][]int32) { jt.revoked() }),
		)
	}

	if !o.HideHeader && !o.JSON {
		if o.ShowDetailedStats {
			fmt.Fprintln(out, detailedHeader)
		} else {
			fmt.Fprintln(out, basicHeader)
		}
	}

	start := time.Now()
	jt.joinStart = start
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return sum, fmt.Errorf("perf: creating consumer: %w", err)
	}
	defer cl.Close()
	c.WarnUnused(errOut)
	// A mistyped topic would otherwise only end in the timeout warning,
	// and a failed login or refused topic in nothing at all: kgo retries
	// them where Java's consumer throws.
	var topics []string
	if o.Topic != "" {
		topics = []string{o.Topic}
	}
	cctx, cancel := context.WithTimeout(ctx, min(o.Timeout, 5*time.Second))
	err = cliutil.CheckTopics(cctx, cl, errOut, topics, -1)
	cancel()
	if err != nil {
		return sum, fmt.Errorf("perf: %w", err)
	}
	wctx, stopWatch := cliutil.WatchFatal(ctx, cl)

	var (
		messages, bytes         int64
		lastMessages, lastBytes int64
		lastReport              = start
		lastConsumed            = time.Now()
	)
	maxPoll := set.MaxPollRecords
	for messages < o.Messages && time.Since(lastConsumed) <= o.Timeout && wctx.Err() == nil {
		// Poll in short rounds, like Kafka's poll(100 ms), so the gap
		// check runs even when nothing arrives.
		pctx, cancel := context.WithTimeout(wctx, 100*time.Millisecond)
		fetches := cl.PollRecords(pctx, maxPoll)
		cancel()
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			return sum, fmt.Errorf("perf: %w", cliutil.FetchError(fe, set.Group))
		}
		now := time.Now()
		if fetches.NumRecords() > 0 {
			lastConsumed = now
		}
		for it := fetches.RecordIter(); !it.Done() && messages < o.Messages; {
			r := it.Next()
			messages++
			bytes += int64(len(r.Key) + len(r.Value))
			if now.Sub(lastReport) >= o.ReportingInterval {
				if o.ShowDetailedStats && !o.JSON {
					printProgress(out, df, bytes, lastBytes, messages, lastMessages, lastReport, now, jt.takeRound())
				}
				lastReport, lastMessages, lastBytes = now, messages, bytes
			}
		}
	}
	end := time.Now()
	if werr := stopWatch(); werr != nil {
		return sum, fmt.Errorf("perf: %w", werr)
	}
	sum.TimedOut = messages < o.Messages && ctx.Err() == nil
	if sum.TimedOut && !o.JSON {
		fmt.Fprintf(out, "WARNING: Exiting before consuming the expected number of messages: timeout (%d ms) exceeded. You can use the --timeout option to increase the timeout.\n", o.Timeout.Milliseconds())
	}

	elapsedMs := end.Sub(start).Milliseconds()
	join := jt.totalTime().Milliseconds()
	fetchMs := elapsedMs - join
	mb := float64(bytes) / mib
	secs := float64(elapsedMs) / 1000.0
	sum.StartTime, sum.EndTime = df.format(start), df.format(end)
	sum.MB, sum.Messages, sum.Bytes = mb, messages, bytes
	sum.MBPerSec = mb / secs
	sum.MessagesPerSec = float64(messages) / secs
	sum.RebalanceMs, sum.FetchMs = join, fetchMs
	sum.FetchMBPerSec = mb / (float64(fetchMs) / 1000.0)
	sum.FetchMessagesPerSec = float64(messages) / (float64(fetchMs) / 1000.0)
	var snap map[string]float64
	if o.PrintMetrics {
		snap = metrics.snapshot(false, clientID)
	}
	switch {
	case o.JSON:
		j := sum
		j.Metrics = snap
		j.MBPerSec, j.MessagesPerSec = finite(j.MBPerSec), finite(j.MessagesPerSec)
		j.FetchMBPerSec, j.FetchMessagesPerSec = finite(j.FetchMBPerSec), finite(j.FetchMessagesPerSec)
		if err := json.NewEncoder(out).Encode(j); err != nil {
			return sum, fmt.Errorf("perf: writing json: %w", err)
		}
	case !o.ShowDetailedStats:
		fmt.Fprintf(out, "%s, %s, %s, %s, %d, %s, %d, %d, %s, %s\n",
			sum.StartTime, sum.EndTime, javanum.FormatFixed(mb, 4), javanum.FormatFixed(sum.MBPerSec, 4), messages,
			javanum.FormatFixed(sum.MessagesPerSec, 4), join, fetchMs, javanum.FormatFixed(sum.FetchMBPerSec, 4), javanum.FormatFixed(sum.FetchMessagesPerSec, 4))
		printMetrics(out, snap)
	default:
		printMetrics(out, snap)
	}
	return sum, nil
}

// printProgress is one --show-detailed-stats line: the basic interval
// figures then the extended ones, with thread id 0 as in Kafka.
func printProgress(w io.Writer, df *dateFormat, bytes, lastBytes, messages, lastMessages int64, lastReport, now time.Time, join time.Duration) {
	elapsedMs := float64(now.Sub(lastReport).Milliseconds())
	totalMB := float64(bytes) / mib
	intervalMB := float64(bytes-lastBytes) / mib
	fmt.Fprintf(w, "%s, %d, %s, %s, %d, %s", df.format(now), 0, javanum.FormatFixed(totalMB, 4),
		javanum.FormatFixed(1000.0*intervalMB/elapsedMs, 4), messages,
		javanum.FormatFixed(float64(messages-lastMessages)/elapsedMs*1000.0, 4))
	fetchMs := now.Sub(lastReport).Milliseconds() - join.Milliseconds()
	mbps, mps := 0.0, 0.0
	if fetchMs > 0 {
		mbps = 1000.0 * intervalMB / float64(fetchMs)
		mps = 1000.0 * float64(messages-lastMessages) / float64(fetchMs)
	}
	fmt.Fprintf(w, ", %d, %d, %s, %s\n", join.Milliseconds(), fetchMs, javanum.FormatFixed(mbps, 4), javanum.FormatFixed(mps, 4))
}
