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
	// Dialer connects fetchers to leaders (the inter-broker listener, its
	// TLS and SASL); nil leaves followers unable to fetch.
	Dialer LeaderDialer

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
	// configGen counts UpdateTopicConfigs per topic, allConfigGen those of
	// every topic (see getOrCreatePartition).
	configGen    map[string]uint64
	allConfigGen uint64

	fetchers *fetcherManager

	// stateChangeMu serialises LeaderAndIsr and StopReplica handling, as the
	// controller expects them applied in the order it sent them.
	stateChangeMu sync.Mutex

	stop chan struct{}
	wg   sync.WaitGroup
	// stopping is closed by BeginShutdown: the broker is going down, so a
	// LeaderAndIsr still creating partitions stops there.
	stopping     chan struct{}
	stoppingOnce sync.Once

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
		configGen:       map[string]uint64{},
		stop:            make(chan struct{}),
		stopping:        make(chan struct{}),
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

// BeginShutdown tells the manager the broker is stopping: a LeaderAndIsr
// in progress leaves the partitions it has not reached yet (answering
// them with an error, so a controller would send them again), instead of
// holding the shutdown while it creates thousands of logs.
func (m *Manager) BeginShutdown() {
	m.stoppingOnce.Do(func() { close(m.stopping) })
}

func (m *Manager) isStopping() bool {
	select {
	case <-m.stopping:
		return true
	default:
		return false
	}
}

// Shutdown stops fetchers and background tasks and writes the final HW
// checkpoint. The logs themselves are closed by the storage manager.
func (m *Manager) Shutdown() error {
	m.BeginShutdown()
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
	m.UpdateTopicConfigs([]string{topic})
}

// UpdateTopicConfigs applies the current configuration of each topic to
// its partitions, reading each topic's configuration once and walking the
// partitions once; nil means every topic hosted here (a broker default
// changed).
func (m *Manager) UpdateTopicConfigs(topics []string) {
	var want map[string]bool
	if topics != nil {
		want = make(map[string]bool, len(topics))
		for _, t := range topics {
			want[t] = true
		}
	}
	m.mu.Lock()
	for t := range want {
		m.configGen[t]++
	}
	if want == nil {
		m.allConfigGen++
	}
	parts := make([]*Partition, 0, len(m.partitions))
	for tp, p := range m.partitions {
		if want == nil || want[tp.Topic] {
			parts = append(parts, p)
		}
	}
	m.mu.Unlock()
	cfgs := map[string]*PartitionConfig{}
	for _, p := range parts {
		c, ok := cfgs[p.tp.Topic]
		if !ok {
			cc := m.cfg.ConfigFor(p.tp.Topic)
			c = &cc
			cfgs[p.tp.Topic] = c
		}
		p.cfg.Store(c)
		p.log.UpdateConfig(c.Log)
	}
}

// configGeneration counts the configuration changes of topic, so a
// partition created while one was applied can tell it missed it.
func (m *Manager) configGeneration(topic string) uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.configGen[topic] + m.allConfigGen
}

// getOrCreatePartition returns the partition, creating it and its log.
// Creation reads the topic's configuration (from the store) and creates
// files, so it runs outside m.mu, which every produce and fetch takes to
// find its partition: only the insertion takes it. Creations are
// serialised by stateChangeMu (LeaderAndIsr), so no two create one
// partition at once. cfgs caches topic configurations over one request.
func (m *Manager) getOrCreatePartition(tp partid.TopicPartition, topicID [16]byte, cfgs map[string]PartitionConfig) (*Partition, error) {
	if p, ok := m.Partition(tp); ok {
		return p, nil
	}
	gen := m.configGeneration(tp.Topic)
	cfg, ok := cfgs[tp.Topic]
	if !ok {
		var err error
		if cfg, err = m.newPartitionConfig(tp.Topic); err != nil {
			return nil, fmt.Errorf("replica: reading the config of %s: %w", tp, err)
		}
		if cfgs != nil {
			cfgs[tp.Topic] = cfg
		}
	}
	l, err := m.logs.GetOrCreateLog(tp, cfg.Log, topicID)
	if err != nil {
		return nil, fmt.Errorf("replica: creating log %s: %w", tp, err)
	}
	p := &Partition{tp: tp, log: l, m: m, leader: -1, leaderEpoch: -1, partitionEpoch: -1, topicID: topicID,
		stats: m.cfg.Metrics.TopicSet().Acquire(tp.Topic)}
	p.cfg.Store(&cfg)
	m.mu.Lock()
	hw := m.initialHW[tp]
	if leo := l.LogEndOffset(); hw > leo {
		hw = leo
	}
	if start := l.LogStartOffset(); hw < start {
		hw = start
	}
	l.SetHighWatermark(hw)
	m.partitions[tp] = p
	missed := m.configGen[tp.Topic]+m.allConfigGen != gen
	m.mu.Unlock()
	if missed {
		// A change was applied while this partition was being created
		// and did not see it: take the topic's configuration now.
		m.UpdateTopicConfig(tp.Topic)
	}
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
