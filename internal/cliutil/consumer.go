package cliutil

import (
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumerSettings are the parts of a consumer config that a tool applies
// itself.
type ConsumerSettings struct {
	// Group is group.id; empty means no consumer group.
	Group string
	// MaxPollRecords is max.poll.records (Java's default 500).
	MaxPollRecords int
	// AutoCommit is enable.auto.commit (Java's default true).
	AutoCommit bool
	// Reset is auto.offset.reset: "earliest", "latest" or "none".
	Reset string
}

// Balancer maps one partition.assignment.strategy entry, by short name or
// by Java class name.
func Balancer(name string) (kgo.GroupBalancer, error) {
	short := strings.TrimSpace(name)
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	switch strings.ToLower(short) {
	case "range", "rangeassignor":
		return kgo.RangeBalancer(), nil
	case "roundrobin", "roundrobinassignor":
		return kgo.RoundRobinBalancer(), nil
	case "sticky", "stickyassignor":
		return kgo.StickyBalancer(), nil
	case "cooperative-sticky", "cooperativestickyassignor":
		return kgo.CooperativeStickyBalancer(), nil
	}
	return nil, fmt.Errorf("unsupported partition.assignment.strategy %s: use range, roundrobin, sticky or cooperative-sticky", name)
}

// ResetOffset maps auto.offset.reset onto the kgo offset used where a
// partition has no committed position.
func ResetOffset(v string) (kgo.Offset, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "earliest":
		return kgo.NewOffset().AtStart(), nil
	case "latest":
		return kgo.NewOffset().AtEnd(), nil
	case "none":
		return kgo.NewOffset().AtCommitted(), nil
	}
	return kgo.Offset{}, fmt.Errorf("Invalid value %s for configuration auto.offset.reset: String must be one of: latest, earliest, none", v)
}

// ResetOpts sets both of kgo's offsets from an auto.offset.reset value,
// since Java uses the one setting both for a partition without a committed
// offset and for an out-of-range fetch. An invalid value yields "latest".
func ResetOpts(reset string) []kgo.Opt {
	switch reset {
	case "earliest":
		return []kgo.Opt{kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	case "none":
		return []kgo.Opt{kgo.ConsumeStartOffset(kgo.NewOffset().AtCommitted()), kgo.ConsumeResetOffset(kgo.NoResetOffset())}
	}
	return []kgo.Opt{kgo.ConsumeStartOffset(kgo.NewOffset().AtEnd()), kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd())}
}

// javaFetchMaxWait is the Java consumer's fetch.max.wait.ms default.
const javaFetchMaxWait = 500 * time.Millisecond

// ConsumerOpts maps consumer properties (and the common ones) onto kgo.
// The start offset and reset policy follow auto.offset.reset (default
// latest, as in Java). Group options are added only when group.id is set;
// the caller adds what to consume (topics, regex or partitions).
func ConsumerOpts(c *Config) ([]kgo.Opt, ConsumerSettings, error) {
	set := ConsumerSettings{MaxPollRecords: 500, AutoCommit: true, Reset: "latest"}
	opts, err := CommonOpts(c)
	if err != nil {
		return nil, set, err
	}
	wrap := func(err error) ([]kgo.Opt, ConsumerSettings, error) {
		return nil, set, fmt.Errorf("cliutil: %w", err)
	}
	if v, ok := c.Get("auto.offset.reset"); ok {
		if _, err := ResetOffset(v); err != nil {
			return wrap(err)
		}
		set.Reset = strings.ToLower(strings.TrimSpace(v))
	}
	opts = append(opts, ResetOpts(set.Reset)...)
	if v, ok := c.Get("isolation.level"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "read_committed":
			opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		case "read_uncommitted":
			opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
		default:
			return wrap(fmt.Errorf("Invalid value %s for configuration isolation.level: String must be one of: read_committed, read_uncommitted", v))
		}
	}
	if n, ok, err := c.Int("max.poll.records"); err != nil {
		return wrap(err)
	} else if ok {
		if n < 1 {
			return wrap(invalidValue("max.poll.records", fmt.Sprint(n), "a value of at least 1"))
		}
		set.MaxPollRecords = int(n)
	}
	if n, ok, err := c.Int("fetch.min.bytes"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.FetchMinBytes(int32(max(n, 1))))
	}
	// Java's default is 500 ms, franz-go's 5 s. It matters beyond latency:
	// a fetch of empty partitions waits that long, and a partition whose
	// start offset resolves meanwhile is not fetched until it returns.
	fetchWait := javaFetchMaxWait
	if d, ok, err := c.Millis("fetch.max.wait.ms"); err != nil {
		return wrap(err)
	} else if ok {
		fetchWait = d
	}
	opts = append(opts, kgo.FetchMaxWait(fetchWait))
	if n, ok, err := c.Int("fetch.max.bytes"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.FetchMaxBytes(int32(n)))
	}
	if n, ok, err := c.Int("max.partition.fetch.bytes"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.FetchMaxPartitionBytes(int32(n)))
	}
	if v, ok := c.Get("client.rack"); ok && v != "" {
		opts = append(opts, kgo.Rack(v))
	}

	group, _ := c.Get("group.id")
	set.Group = group
	if group == "" {
		// Group-only settings are meaningless without a group; read them so
		// they do not draw warnings, as Java ignores them too.
		c.Consume("enable.auto.commit", "auto.commit.interval.ms", "session.timeout.ms",
			"heartbeat.interval.ms", "partition.assignment.strategy", "group.instance.id",
			"max.poll.interval.ms", "group.protocol")
		return opts, set, nil
	}
	opts = append(opts, kgo.ConsumerGroup(group))
	if b, ok, err := c.Bool("enable.auto.commit"); err != nil {
		return wrap(err)
	} else if ok {
		set.AutoCommit = b
	}
	if !set.AutoCommit {
		opts = append(opts, kgo.DisableAutoCommit())
	}
	if d, ok, err := c.Millis("auto.commit.interval.ms"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.AutoCommitInterval(d))
	}
	if d, ok, err := c.Millis("session.timeout.ms"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.SessionTimeout(d))
	}
	if d, ok, err := c.Millis("heartbeat.interval.ms"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.HeartbeatInterval(d))
	}
	if d, ok, err := c.Millis("max.poll.interval.ms"); err != nil {
		return wrap(err)
	} else if ok {
		// The nearest kgo knob: how long a member may take to rejoin.
		opts = append(opts, kgo.RebalanceTimeout(d))
	}
	if v, ok := c.Get("partition.assignment.strategy"); ok {
		var bals []kgo.GroupBalancer
		for _, name := range strings.Split(v, ",") {
			if strings.TrimSpace(name) == "" {
				continue
			}
			b, err := Balancer(name)
			if err != nil {
				return wrap(err)
			}
			bals = append(bals, b)
		}
		if len(bals) > 0 {
			opts = append(opts, kgo.Balancers(bals...))
		}
	}
	if v, ok := c.Get("group.instance.id"); ok && v != "" {
		opts = append(opts, kgo.InstanceID(v))
	}
	c.Consume("group.protocol")
	return opts, set, nil
}

// FetchError words an error a consumer's poll returned by what it is
// about: kgo reports a consumer group's errors (joining, committing) with
// no topic, and a whole topic's (refused, unknown) with partition -1.
// group is the consumer's group.id, empty without one.
func FetchError(fe kgo.FetchError, group string) error {
	switch {
	case fe.Topic == "" && group != "":
		return fmt.Errorf("consumer group %s: %w", group, fe.Err)
	case fe.Topic == "":
		return fe.Err
	case fe.Partition < 0:
		return fmt.Errorf("consuming topic %s: %w", fe.Topic, fe.Err)
	}
	return fmt.Errorf("consuming topic %s partition %d: %w", fe.Topic, fe.Partition, fe.Err)
}
