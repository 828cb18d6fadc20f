package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/admin"
	"kafgo/broker/api"
	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/group"
	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/partid"
	"kafgo/broker/quota"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/txn"
	"kafgo/broker/wire"
)

// Broker is one running kafgo broker.
type Broker struct {
	cfg    atomic.Pointer[config.Broker]
	static *config.Broker // the configuration as started, before dynamic changes
	log    *slog.Logger

	store     meta.Store
	clusterID string
	logs      *storage.Manager
	cache     *clusterview.Cache
	replicas  *replica.Manager
	ctl       *controller.Controller
	admin     *controller.Admin
	groups    *group.Coordinator
	txns      *txn.Coordinator
	pids      *producerIDs
	topics    *topicConfigs
	api       *api.Server
	net       *wire.Server
	ib        *interBroker
	cc        *controllerClient
	adminHTTP *admin.Server

	registered  chan struct{}
	brokerEpoch atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// New prepares a broker from a validated configuration.
func New(cfg *config.Broker, logger *slog.Logger) *Broker {
	if logger == nil {
		logger = slog.Default()
	}
	b := &Broker{log: logger.With("broker", cfg.BrokerID), registered: make(chan struct{})}
	b.cfg.Store(cfg)
	b.static = cfg
	return b
}

// Config is the broker's current configuration.
func (b *Broker) Config() *config.Broker { return b.cfg.Load() }

// Addr is the bound address of a listener (after Start).
func (b *Broker) Addr(listener string) net.Addr { return b.net.Addr(listener) }

// Start brings the broker up; it returns once the broker is registered and
// serving, or with the first error.
func (b *Broker) Start(ctx context.Context) error {
	cfg := b.Config()
	runCtx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel

	store, err := b.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	b.store = store
	if err := znode.EnsurePersistentPaths(ctx, store); err != nil {
		return fmt.Errorf("broker: creating metadata paths: %w", err)
	}
	if b.clusterID, err = znode.GetOrCreateClusterID(ctx, store); err != nil {
		return fmt.Errorf("broker: cluster id: %w", err)
	}

	b.admin = &controller.Admin{Store: store}
	b.topics = &topicConfigs{admin: b.admin, store: store, broker: b.Config, log: b.log, overrides: map[string]map[string]string{}, lastSeq: -1}
	defLog := partitionConfig(b.topicDefaults(), cfg.BrokerID).Log
	b.logs, err = storage.OpenManager(storage.ManagerConfig{
		LogDirs:                 cfg.LogDirs,
		BrokerID:                cfg.BrokerID,
		ClusterID:               b.clusterID,
		DefaultLog:              defLog,
		RetentionCheckInterval:  time.Duration(cfg.LogRetentionCheckIntervalMs) * time.Millisecond,
		FlushSchedulerInterval:  time.Duration(min(cfg.LogFlushSchedulerIntervalMs, int64(time.Hour/time.Millisecond))) * time.Millisecond,
		CheckpointInterval:      time.Duration(cfg.LogFlushOffsetCheckpointIntervalMs) * time.Millisecond,
		CleanerEnable:           cfg.LogCleanerEnable,
		CleanerThreads:          int(cfg.LogCleanerThreads),
		CleanerBackoff:          time.Duration(cfg.LogCleanerBackoffMs) * time.Millisecond,
		CleanerDedupeBufferSize: cfg.LogCleanerDedupeBufferSize,
		CleanerIoBufferSize:     int(cfg.LogCleanerIoBufferSize),
		CleanerDedupeLoadFactor: cfg.LogCleanerIoBufferLoadFactor,
		Logger:                  b.log,
	})
	if err != nil {
		return err
	}

	b.cache = clusterview.New()
	listener := cfg.InterBrokerListenerName
	b.ctl = controller.New(controller.Config{
		BrokerID:               cfg.BrokerID,
		Store:                  store,
		InterBrokerListener:    listener,
		DeleteTopicEnable:      cfg.DeleteTopicEnable,
		UncleanLeaderElection:  func(t string) bool { return b.topics.Effective(t).UncleanLeaderElectionEnable },
		AutoLeaderRebalance:    cfg.AutoLeaderRebalanceEnable,
		ImbalanceCheckInterval: time.Duration(cfg.LeaderImbalanceCheckIntervalSeconds) * time.Second,
		ImbalancePercentage:    int(cfg.LeaderImbalancePerBrokerPercentage),
		Logger:                 b.log,
	})
	b.cc = &controllerClient{ctl: b.ctl, cache: b.cache, listener: listener}
	b.replicas, err = replica.NewManager(replica.Config{
		BrokerID:             cfg.BrokerID,
		Logs:                 b.logs,
		Cache:                b.cache,
		ConfigFor:            func(t string) replica.PartitionConfig { return partitionConfig(b.topics.Effective(t), cfg.BrokerID) },
		Controller:           b.cc,
		InterBrokerListener:  listener,
		ReplicaLagTimeMax:    time.Duration(cfg.ReplicaLagTimeMaxMs) * time.Millisecond,
		FetchMaxBytes:        cfg.ReplicaFetchMaxBytes,
		FetchMinBytes:        cfg.ReplicaFetchMinBytes,
		FetchResponseMax:     cfg.ReplicaFetchResponseMaxBytes,
		FetchWaitMax:         time.Duration(cfg.ReplicaFetchWaitMaxMs) * time.Millisecond,
		FetchBackoff:         time.Duration(cfg.ReplicaFetchBackoffMs) * time.Millisecond,
		NumFetchers:          int(cfg.NumReplicaFetchers),
		HWCheckpointInterval: time.Duration(cfg.ReplicaHighWatermarkCheckpointIntervalMs) * time.Millisecond,
		RequestTimeout:       time.Duration(cfg.RequestTimeoutMs) * time.Millisecond,
		LeaderQuota:          newReplicationQuota(cfg, cfg.LeaderReplicationThrottledRate),
		FollowerQuota:        newReplicationQuota(cfg, cfg.FollowerReplicationThrottledRate),
		Logger:               b.log,
		// Set before any LeaderAndIsr can arrive (the listeners start below).
		OnLeadershipChange: func(tp partid.TopicPartition, leader bool, epoch int32) {
			b.groups.OnLeadershipChange(tp.Topic, tp.Partition, leader, epoch)
			b.txns.OnLeadershipChange(tp.Topic, tp.Partition, leader, epoch)
		},
	})
	if err != nil {
		return err
	}
	b.groups = group.New(group.ConfigFromBroker(cfg, b.log), internalTopicLog(b.replicas, group.OffsetsTopic), b.cache)
	b.pids = &producerIDs{store: b.store, broker: cfg.BrokerID}
	b.txns = txn.New(txn.ConfigFromBroker(cfg, b.log), internalTopicLog(b.replicas, txn.TopicName), b.cache, b.pids.Next, markerSender{b})
	b.topics.onTopic = b.replicas.UpdateTopicConfig
	b.topics.onBroker = b.reloadBrokerConfig
	b.reloadBrokerConfig(strconv.Itoa(int(cfg.BrokerID)))
	b.api = api.New(b.apiDeps())
	b.ib = newInterBroker(cfg.BrokerID, b.api)
	b.cc.ib = b.ib
	b.ctl.SetSender(b.ib)

	b.net = wire.NewServer(b.serverConfig(cfg), b.api)
	if err := b.net.Start(); err != nil {
		return err
	}
	b.fillAdvertisedPorts()
	if addr := cfg.AdminListener; addr != "" {
		if b.adminHTTP, err = admin.Start(addr, admin.Source{
			BrokerID: cfg.BrokerID, ClusterID: b.clusterID, Replicas: b.replicas, Wire: b.net,
			ControllerID: func() int32 { return b.cache.View().ControllerID }, IsController: b.ctl.IsActive, ControllerEpoch: b.ctl.Epoch,
		}, b.log); err != nil {
			return err
		}
	}

	b.topics.skipExisting(ctx)
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.topics.follow(runCtx) }()
	b.logs.Start(runCtx)
	b.replicas.Start()
	b.groups.Start()
	b.txns.Start()
	if err := b.register(ctx); err != nil {
		return err
	}
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.keepRegistered(runCtx) }()
	b.ctl.Start()
	b.log.Info("broker started", "cluster_id", b.clusterID, "listeners", cfg.AdvertisedListeners, "embedded_metadata", cfg.Embedded())
	return nil
}

func (b *Broker) openStore(ctx context.Context, cfg *config.Broker) (meta.Store, error) {
	if cfg.Embedded() {
		return meta.OpenEmbedded(filepath.Join(cfg.LogDirs[0], "kafgo-metadata.json"), b.log)
	}
	timeout := time.Duration(cfg.ZooKeeperConnectionTimeoutMs) * time.Millisecond
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return meta.DialZooKeeper(dctx, cfg.ZooKeeperConnect, time.Duration(cfg.ZooKeeperSessionTimeoutMs)*time.Millisecond, b.log)
}

// topicDefaults is the broker-default topic config (no overrides).
func (b *Broker) topicDefaults() config.Topic {
	t, _ := b.Config().TopicConfig(nil)
	return t
}

func (b *Broker) serverConfig(cfg *config.Broker) wire.ServerConfig {
	sc := wire.ServerConfig{
		MaxRequestSize:  cfg.SocketRequestMaxBytes,
		IdleTimeout:     time.Duration(cfg.ConnectionsMaxIdleMs) * time.Millisecond,
		SendBufferBytes: int(cfg.SocketSendBufferBytes),
		RecvBufferBytes: int(cfg.SocketReceiveBufferBytes),
		Logger:          b.log,
	}
	for _, l := range cfg.Listeners {
		sc.Listeners = append(sc.Listeners, wire.ListenerConfig{Name: l.Name, Addr: l.Addr()})
	}
	return sc
}

// fillAdvertisedPorts replaces advertised port 0 with the bound port, so
// tests and `make run` can ask for any free port.
func (b *Broker) fillAdvertisedPorts() {
	cfg := b.Config().Clone()
	changed := false
	for i, l := range cfg.AdvertisedListeners {
		if l.Port != 0 {
			continue
		}
		if a, ok := b.net.Addr(l.Name).(*net.TCPAddr); ok {
			cfg.AdvertisedListeners[i].Port = a.Port
			changed = true
		}
	}
	if changed {
		b.cfg.Store(cfg)
		b.static = cfg
	}
}

// register creates /brokers/ids/<id>. A registration left by this broker's
// previous process (kill -9) lives until its session expires; like Kafka we
// wait for that rather than steal it.
func (b *Broker) register(ctx context.Context) error {
	cfg := b.Config()
	var eps []znode.Endpoint
	for _, l := range cfg.AdvertisedListeners {
		eps = append(eps, znode.Endpoint{Listener: l.Name, Host: l.Host, Port: int32(l.Port), SecurityProtocol: cfg.ListenerSecurityProtocolMap[l.Name]})
	}
	data, err := znode.NewBrokerInfo(eps, cfg.BrokerRack, time.Now()).Marshal()
	if err != nil {
		return err
	}
	path := znode.BrokerIDPath(cfg.BrokerID)
	warned := false
	for {
		_, err := b.store.Create(ctx, path, data, meta.Ephemeral)
		if err == nil {
			break
		}
		if !errors.Is(err, meta.ErrNodeExists) {
			return fmt.Errorf("broker: registering %s: %w", path, err)
		}
		_, stat, gerr := b.store.Get(ctx, path)
		if gerr == nil && stat.EphemeralOwner == b.store.SessionID() {
			break
		}
		if !warned {
			b.log.Warn("a previous registration of this broker id is still live; waiting for its session to expire", "path", path)
			warned = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("broker: registering %s: %w", path, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
	_, stat, err := b.store.Get(ctx, path)
	if err != nil {
		return fmt.Errorf("broker: reading registration: %w", err)
	}
	b.brokerEpoch.Store(stat.Czxid)
	b.replicas.SetBrokerEpoch(stat.Czxid)
	b.log.Info("registered", "path", path, "broker_epoch", stat.Czxid)
	return nil
}

// keepRegistered re-registers after a session expiry: the ephemeral
// registration died with the old session.
func (b *Broker) keepRegistered(ctx context.Context) {
	sessions := b.store.Sessions()
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-sessions:
			if !ok {
				return
			}
			if s == meta.SessionConnected {
				rctx, cancel := context.WithTimeout(ctx, time.Minute)
				if err := b.register(rctx); err != nil {
					b.log.Error("re-registration failed", "err", err)
				}
				cancel()
			}
		}
	}
}

// Shutdown stops the broker: controlled shutdown first (leaderships move
// while we still serve), then listeners, replication, logs and the store.
func (b *Broker) Shutdown(ctx context.Context) error {
	var errs []error
	b.once.Do(func() {
		cfg := b.Config()
		if cfg.ControlledShutdownEnable && !cfg.Embedded() && b.replicas != nil {
			b.controlledShutdown(ctx)
		}
		if b.ctl != nil {
			b.ctl.Stop()
		}
		if b.adminHTTP != nil {
			_ = b.adminHTTP.Shutdown(ctx)
		}
		if b.groups != nil {
			// Answers waiting JoinGroups and SyncGroups so the listeners
			// can drain.
			b.groups.Stop()
		}
		if b.txns != nil {
			b.txns.Stop()
		}
		if b.net != nil {
			if err := b.net.Shutdown(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		if b.cancel != nil {
			b.cancel()
		}
		if b.replicas != nil {
			if err := b.replicas.Shutdown(); err != nil {
				errs = append(errs, err)
			}
		}
		if b.ib != nil {
			b.ib.close()
		}
		b.wg.Wait()
		if b.logs != nil {
			if err := b.logs.Shutdown(); err != nil {
				errs = append(errs, err)
			}
		}
		if b.store != nil {
			if err := b.store.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		b.log.Info("broker stopped")
	})
	return errors.Join(errs...)
}

func (b *Broker) controlledShutdown(ctx context.Context) {
	cfg := b.Config()
	for attempt := 0; attempt <= int(cfg.ControlledShutdownMaxRetries); attempt++ {
		req := controlledShutdownRequest(cfg.BrokerID, b.brokerEpoch.Load())
		rctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.RequestTimeoutMs)*time.Millisecond)
		resp, err := b.cc.ControlledShutdown(rctx, req)
		cancel()
		if err == nil && resp.ErrorCode == 0 && len(resp.PartitionsRemaining) == 0 {
			b.log.Info("controlled shutdown complete")
			return
		}
		b.log.Warn("controlled shutdown incomplete; retrying", "attempt", attempt, "err", err, "remaining", remaining(resp))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(cfg.ControlledShutdownRetryBackoffMs) * time.Millisecond):
		}
	}
	b.log.Warn("controlled shutdown did not finish; stopping anyway")
}

func remaining(resp *kmsg.ControlledShutdownResponse) int {
	if resp == nil {
		return -1
	}
	return len(resp.PartitionsRemaining)
}

func controlledShutdownRequest(id int32, epoch int64) *kmsg.ControlledShutdownRequest {
	req := kmsg.NewPtrControlledShutdownRequest()
	req.Version = 3
	req.BrokerID = id
	req.BrokerEpoch = epoch
	return req
}

func (b *Broker) apiDeps() *api.Deps {
	return &api.Deps{
		BrokerID:            b.Config().BrokerID,
		ClusterID:           b.clusterID,
		InterBrokerListener: b.Config().InterBrokerListenerName,
		Cache:               b.cache,
		Replicas:            b.replicas,
		Logs:                b.logs,
		Controller:          b.ctl,
		Admin:               b.admin,
		Groups:              b.groups,
		Txns:                b.txns,
		OnTxnMarker:         b.groups.OnTxnMarker,
		Logger:              b.log,
		Config:              b.Config,
		TopicOverrides:      b.topics.Overrides,
		AlterBrokerConfig:   b.alterBrokerConfig,
		NextProducerID:      b.pids.Next,
		RequestTimeout:      time.Duration(b.Config().RequestTimeoutMs) * time.Millisecond,
	}
}

// alterBrokerConfig persists dynamic broker configs for entity (this
// broker's id or <default>); every broker applies them from the change
// notification, this one included.
func (b *Broker) alterBrokerConfig(ctx context.Context, entity string, configs map[string]string) error {
	return b.admin.SetEntityConfig(ctx, znode.ConfigTypeBroker, entity, configs)
}

// reloadBrokerConfig applies the stored dynamic configs of this broker and
// the cluster default onto the static configuration.
func (b *Broker) reloadBrokerConfig(entity string) {
	self := strconv.Itoa(int(b.Config().BrokerID))
	if entity != self && entity != znode.DefaultBrokerEntity {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	def, err := b.admin.EntityConfig(ctx, znode.ConfigTypeBroker, znode.DefaultBrokerEntity)
	if err != nil {
		b.log.Warn("cannot read default broker config", "err", err)
		return
	}
	own, err := b.admin.EntityConfig(ctx, znode.ConfigTypeBroker, self)
	if err != nil {
		b.log.Warn("cannot read broker config", "err", err)
		return
	}
	next := b.static.Clone()
	for k, v := range def {
		if err := next.SetClusterDefault(k, v); err != nil {
			b.log.Warn("ignoring invalid dynamic default config", "key", k, "err", err)
		}
	}
	for k, v := range own {
		if err := next.Set(k, v); err != nil {
			b.log.Warn("ignoring invalid dynamic broker config", "key", k, "err", err)
		}
	}
	b.cfg.Store(next)
	if len(def)+len(own) > 0 {
		b.log.Info("dynamic broker config applied", "entity", entity, "default", len(def), "own", len(own))
	}
	b.applyReplicationThrottle(next)
	// Topic defaults may have changed with it.
	for _, p := range b.replicas.Partitions() {
		b.replicas.UpdateTopicConfig(p.TopicPartition().Topic)
	}
}

// newReplicationQuota builds one side's replication quota (KIP-73) with the
// static window shape and the rate the broker starts with.
func newReplicationQuota(cfg *config.Broker, rate int64) *quota.Quota {
	return quota.New(quota.Config{
		Samples: int(cfg.ReplicationQuotaWindowNum),
		Window:  time.Duration(cfg.ReplicationQuotaWindowSizeSeconds) * time.Second,
		Limit:   rate,
	})
}

// applyReplicationThrottle moves the quotas to the configured rates, so a
// change of leader/follower.replication.throttled.rate takes effect on the
// next fetch, without a restart.
func (b *Broker) applyReplicationThrottle(cfg *config.Broker) {
	leader, follower := b.replicas.Quotas()
	for _, side := range []struct {
		name  string
		quota *quota.Quota
		rate  int64
	}{{"leader", leader, cfg.LeaderReplicationThrottledRate}, {"follower", follower, cfg.FollowerReplicationThrottledRate}} {
		if side.quota.Limit() != side.rate {
			side.quota.SetLimit(side.rate)
			b.log.Info("replication throttle changed", "side", side.name, "bytes_per_second", side.rate)
		}
	}
}
