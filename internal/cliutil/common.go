package cliutil

import (
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/javaprops"
)

// ErrNoBootstrap is the Java client's complaint when no broker is named.
var ErrNoBootstrap = errors.New(`Missing required configuration "bootstrap.servers" which has no default value.`)

// compatOnly are Java-client properties that have no kgo counterpart and no
// effect on behaviour that matters here; they are read so that configs
// copied from a Java install do not draw warnings.
var compatOnly = []string{
	"key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
	"reconnect.backoff.ms", "reconnect.backoff.max.ms", "send.buffer.bytes", "receive.buffer.bytes",
	"default.api.timeout.ms", "client.dns.lookup", "metrics.recording.level", "metric.reporters",
	"metrics.num.samples", "metrics.sample.window.ms", "auto.include.jmx.reporter", "check.crcs",
	"exclude.internal.topics", "allow.auto.create.topics", "interceptor.classes",
}

// Java client defaults that kgo's differ from.
const (
	defaultRetryBackoff    = 100 * time.Millisecond // retry.backoff.ms
	defaultDeliveryTimeout = 120 * time.Second      // delivery.timeout.ms
	defaultDialTimeout     = 10 * time.Second       // socket.connection.setup.timeout.ms (kgo's too)
)

// CommonOpts maps the properties every Kafka client understands:
// connection, identity, timeouts and security. bootstrap.servers is
// required.
func CommonOpts(c *Config) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	bs, _ := c.Get("bootstrap.servers")
	seeds := javaprops.List(bs)
	if len(seeds) == 0 {
		return nil, ErrNoBootstrap
	}
	opts = append(opts, kgo.SeedBrokers(seeds...))
	if id, ok := c.Get("client.id"); ok && id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	// Java's clients may refresh metadata every retry.backoff.ms (100 ms)
	// when a partition has no leader yet, e.g. a topic just auto-created;
	// kgo's default floor of 5 s made the first produce to a new topic wait
	// that long.
	opts = append(opts, kgo.MetadataMinAge(defaultRetryBackoff))
	type msOpt struct {
		key string
		opt func(time.Duration) kgo.Opt
	}
	for _, m := range []msOpt{
		// Java's request.timeout.ms bounds how long the client waits for
		// any response; kgo's overhead is that bound for requests without
		// a timeout of their own, and the slack beyond it for the rest.
		{"request.timeout.ms", func(d time.Duration) kgo.Opt { return kgo.RequestTimeoutOverhead(d) }},
		{"metadata.max.age.ms", func(d time.Duration) kgo.Opt { return kgo.MetadataMaxAge(d) }},
		{"connections.max.idle.ms", func(d time.Duration) kgo.Opt { return kgo.ConnIdleTimeout(d) }},
		{"retry.backoff.ms", func(d time.Duration) kgo.Opt {
			return kgo.RetryBackoffFn(func(int) time.Duration { return d })
		}},
		{"retry.backoff.ms", func(d time.Duration) kgo.Opt { return kgo.MetadataMinAge(d) }},
	} {
		d, ok, err := c.Millis(m.key)
		if err != nil {
			return nil, fmt.Errorf("cliutil: %w", err)
		}
		if ok {
			opts = append(opts, m.opt(d))
		}
	}
	dialTimeout := defaultDialTimeout
	if d, ok, err := c.Millis("socket.connection.setup.timeout.ms"); err != nil {
		return nil, fmt.Errorf("cliutil: %w", err)
	} else if ok {
		dialTimeout = d
	}
	sec, err := securityOpts(c, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("cliutil: %w", err)
	}
	c.Consume(compatOnly...)
	opts = append(opts, kgo.WithHooks(new(connWatch)))
	return append(opts, sec...), nil
}

// BootstrapConfig builds a Config from a --bootstrap-server value and an
// optional properties file, with the flag taking precedence over any
// bootstrap.servers in the file, as Kafka's tools do.
func BootstrapConfig(bootstrap, propsFile string) (*Config, error) {
	c := NewConfig()
	if err := c.LoadFile(propsFile); err != nil {
		return nil, err
	}
	if bootstrap != "" {
		c.Set("bootstrap.servers", bootstrap)
	}
	return c, nil
}
