package txn

import (
	"log/slog"
	"time"

	"kafgo/internal/topicname"
)

// TopicName is Kafka's internal topic of transaction state.
const TopicName = topicname.TransactionState

// Config holds the broker settings the coordinator obeys, with Kafka's
// names beside them.
type Config struct {
	BrokerID       int32
	NumPartitions  int32         // transaction.state.log.num.partitions, until the topic exists
	MaxTimeout     time.Duration // transaction.max.timeout.ms
	IDExpiration   time.Duration // transactional.id.expiration.ms
	AbortInterval  time.Duration // transaction.abort.timed.out.transaction.cleanup.interval.ms
	ExpireInterval time.Duration // transaction.remove.expired.transaction.cleanup.interval.ms
	LoadBufferSize int32         // transaction.state.log.load.buffer.size
	// WriteTimeout bounds the replication of one state write (Kafka uses
	// request.timeout.ms) and one WriteTxnMarkers round trip.
	WriteTimeout time.Duration
	// MarkerRetryBackoff is the pause before markers that could not be
	// written (no leader, NOT_LEADER...) are sent again.
	MarkerRetryBackoff time.Duration

	Now    func() time.Time // tests drive the clock
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.NumPartitions <= 0 {
		c.NumPartitions = 50
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = 15 * time.Minute
	}
	if c.IDExpiration <= 0 {
		c.IDExpiration = 7 * 24 * time.Hour
	}
	if c.AbortInterval <= 0 {
		c.AbortInterval = 10 * time.Second
	}
	if c.ExpireInterval <= 0 {
		c.ExpireInterval = time.Hour
	}
	if c.LoadBufferSize <= 0 {
		c.LoadBufferSize = 5 << 20
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.MarkerRetryBackoff <= 0 {
		c.MarkerRetryBackoff = 100 * time.Millisecond
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}
