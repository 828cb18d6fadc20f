package replica

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/quota"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// ControllerClient sends this broker's requests to the active controller.
type ControllerClient interface {
	AlterPartition(ctx context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error)
}

// Config wires a Manager.
type Config struct {
	BrokerID   int32
	Logs       *storage.Manager
	Cache      *clusterview.Cache
	ConfigFor  func(topic string) PartitionConfig
	Controller ControllerClient
	// LoadConfig, if set, reads a topic's configuration from the metadata
	// store when one of its partitions is created here, as Kafka reads
	// /config/topics/<t> when it creates a log: what ConfigFor remembers
	// may belong to a deleted topic of the same name. An error fails the
	// partition's creation. Nil means ConfigFor.
	LoadConfig func(topic string) (PartitionConfig, error)
	// InterBrokerListener names the listener followers use to reach leaders.
	InterBrokerListener string
	// Dialer connects to leaders with the inter-broker listener's security
	// (TLS, SASL); nil dials in plaintext.
	Dialer *wire.Dialer

	ReplicaLagTimeMax    time.Duration // replica.lag.time.max.ms
	FetchMaxBytes        int32         // replica.fetch.max.bytes
	FetchMinBytes        int32         // replica.fetch.min.bytes
	FetchResponseMax     int32         // replica.fetch.response.max.bytes
	FetchWaitMax         time.Duration // replica.fetch.wait.max.ms
	FetchBackoff         time.Duration // replica.fetch.backoff.ms
	NumFetchers          int           // num.replica.fetchers
	HWCheckpointInterval time.Duration // replica.high.watermark.checkpoint.interval.ms
	RequestTimeout       time.Duration
	Logger               *slog.Logger
	Clock                func() time.Time
	// LeaderQuota meters what this broker sends to followers of
	// leader-throttled partitions, FollowerQuota what it fetches for
	// follower-throttled ones (KIP-73). Nil means unlimited.
	LeaderQuota, FollowerQuota *quota.Quota
	// OnLeadershipChange, if set, is called after a partition becomes
	// leader or follower here, or stops being served, outside partition
	// locks; the group coordinator loads and unloads __consumer_offsets
	// partitions with it. It must not block.
	OnLeadershipChange func(tp partid.TopicPartition, leader bool, leaderEpoch int32)
	// Metrics receives the topic and ISR metrics; nil keeps none.
	Metrics *metrics.Registry
}

// Manager is the set of partition replicas on this broker (Kafka's
// ReplicaManager).
type Manager struct {
	cfg      Config
	brokerID int32
	logs     *storage.Manager
	log      *slog.Logger
	now      func() time.Time

	mu              sync.RWMutex
	partitions      map[partid.TopicPartition]*Partition
	controllerEpoch int32
	brokerEpoch     int64
	initialHW       map[partid.TopicPartition]int64

	fetchers *fetcherManager

	// stateChangeMu serialises LeaderAndIsr and StopReplica handling, as the
	// controller expects them applied in the order it sent them.
	stateChangeMu sync.Mutex

	stop chan struct{}
	wg   sync.WaitGroup

	// beforeWait, when set (tests only), runs in a waiting request between
	// a check that found nothing to do and the wait that follows it.
	beforeWait func()
	// afterRead, when set (tests only), runs after each read of a fetch's
	// partitions.
	afterRead func()
}

// NewManager builds a Manager; Start begins its background work.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.NumFetchers <= 0 {
		cfg.NumFetchers = 1
	}
	if cfg.ReplicaLagTimeMax <= 0 {
		cfg.ReplicaLagTimeMax = 30 * time.Second
	}
	if cfg.HWCheckpointInterval <= 0 {
		cfg.HWCheckpointInterval = 5 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.FetchBackoff <= 0 {
		cfg.FetchBackoff = time.Second
	}
	if cfg.LeaderQuota == nil {
		cfg.LeaderQuota = quota.New(quota.Config{Limit: quota.Unlimited})
	}
	if cfg.FollowerQuota == nil {
		cfg.FollowerQuota = quota.New(quota.Config{Limit: quota.Unlimited})
	}
	hws, err := cfg.Logs.ReadHighWatermarks()
	if err != nil {
		return nil, fmt.Errorf("replica: reading high watermarks: %w", err)
	}
	m := &Manager{
		cfg:             cfg,
		brokerID:        cfg.BrokerID,
		logs:            cfg.Logs,
		log:             cfg.Logger.With("component", "replica"),
		now:             cfg.Clock,
		partitions:      make(map[partid.TopicPartition]*Partition),
		controllerEpoch: -1,
		brokerEpoch:     -1,
		initialHW:       hws,
		stop:            make(chan struct{}),
	}
	m.fetchers = newFetcherManager(m)
	return m, nil
}

// Start runs the ISR expiration and HW checkpoint tasks.
func (m *Manager) Start() {
	m.wg.Add(2)
	go m.every(m.cfg.ReplicaLagTimeMax/2, m.shrinkISRs)
	go m.every(m.cfg.HWCheckpointInterval, func() {
		if err := m.CheckpointHighWatermarks(); err != nil {
			m.log.Warn("high watermark checkpoint failed", "err", err)
		}
	})
}

func (m *Manager) every(d time.Duration, f func()) {
	defer m.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// Shutdown stops fetchers and background tasks and writes the final HW
// checkpoint. The logs themselves are closed by the storage manager.
func (m *Manager) Shutdown() error {
	select {
	case <-m.stop:
		return nil
	default:
	}
	close(m.stop)
	m.fetchers.shutdown()
	m.wg.Wait()
	return m.CheckpointHighWatermarks()
}

// Quotas returns the replication quotas: leader side (bytes served to
// throttled followers) and follower side (bytes fetched for throttled
// replicas).
func (m *Manager) Quotas() (leader, follower *quota.Quota) {
	return m.cfg.LeaderQuota, m.cfg.FollowerQuota
}

// SetBrokerEpoch records this broker's epoch (the czxid of its registration),
// sent with AlterPartition and checked against LeaderAndIsr.
func (m *Manager) SetBrokerEpoch(epoch int64) {
	m.mu.Lock()
	m.brokerEpoch = epoch
	m.mu.Unlock()
}

// BrokerEpoch returns the epoch set by SetBrokerEpoch.
func (m *Manager) BrokerEpoch() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.brokerEpoch
}

// Partition returns a hosted partition.
func (m *Manager) Partition(tp partid.TopicPartition) (*Partition, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.partitions[tp]
	return p, ok
}

// Partitions returns every hosted partition, sorted.
func (m *Manager) Partitions() []*Partition {
	m.mu.RLock()
	out := make([]*Partition, 0, len(m.partitions))
	for _, p := range m.partitions {
		out = append(out, p)
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].tp, out[j].tp
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return out
}

// LeaderPartition returns the partition if this broker leads it, else the
// error a client should get: NOT_LEADER_OR_FOLLOWER when the partition is
// known to the cluster, UNKNOWN_TOPIC_OR_PARTITION when it is not.
func (m *Manager) LeaderPartition(tp partid.TopicPartition) (*Partition, error) {
	p, ok := m.Partition(tp)
	if ok && p.IsLeader() {
		return p, nil
	}
	return nil, m.notLeaderError(tp)
}

func (m *Manager) notLeaderError(tp partid.TopicPartition) error {
	if _, known := m.cfg.Cache.View().Partition(tp.Topic, tp.Partition); known {
		return kerr.NotLeaderForPartition
	}
	if _, ok := m.Partition(tp); ok {
		return kerr.NotLeaderForPartition
	}
	return kerr.UnknownTopicOrPartition
}

// UpdateTopicConfig applies a topic's new configuration to its partitions.
func (m *Manager) UpdateTopicConfig(topic string) {
	cfg := m.cfg.ConfigFor(topic)
	for _, p := range m.Partitions() {
		if p.tp.Topic == topic {
			c := cfg
			p.cfg.Store(&c)
			p.log.UpdateConfig(cfg.Log)
		}
	}
}

// getOrCreatePartition returns the partition, creating it and its log.
func (m *Manager) getOrCreatePartition(tp partid.TopicPartition, topicID [16]byte) (*Partition, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.partitions[tp]; ok {
		return p, nil
	}
	// Read under m.mu: UpdateTopicConfig lists the partitions (under m.mu)
	// after it has the new config, so a change stored while this one is
	// being created still reaches it.
	cfg, err := m.newPartitionConfig(tp.Topic)
	if err != nil {
		return nil, fmt.Errorf("replica: reading the config of %s: %w", tp, err)
	}
	l, err := m.logs.GetOrCreateLog(tp, cfg.Log, topicID)
	if err != nil {
		return nil, fmt.Errorf("replica: creating log %s: %w", tp, err)
	}
	p := &Partition{tp: tp, log: l, m: m, leader: -1, leaderEpoch: -1, partitionEpoch: -1, topicID: topicID,
		stats: m.cfg.Metrics.TopicSet().Acquire(tp.Topic)}
	p.cfg.Store(&cfg)
	hw := m.initialHW[tp]
	if leo := l.LogEndOffset(); hw > leo {
		hw = leo
	}
	if start := l.LogStartOffset(); hw < start {
		hw = start
	}
	l.SetHighWatermark(hw)
	m.partitions[tp] = p
	return p, nil
}

func (m *Manager) newPartitionConfig(topic string) (PartitionConfig, error) {
	if m.cfg.LoadConfig != nil {
		return m.cfg.LoadConfig(topic)
	}
	return m.cfg.ConfigFor(topic), nil
}

// CheckpointHighWatermarks writes every partition's HW to
// replication-offset-checkpoint.
func (m *Manager) CheckpointHighWatermarks() error {
	hws := make(map[partid.TopicPartition]int64)
	for _, p := range m.Partitions() {
		hws[p.tp] = p.HighWatermark()
	}
	if len(hws) == 0 {
		return nil
	}
	return m.logs.WriteHighWatermarks(hws)
}
