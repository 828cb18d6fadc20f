package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/admin"
	"kafgo/broker/api"
	"kafgo/broker/clientquota"
	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/credentials"
	"kafgo/broker/group"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/meta/znode"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/quota"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/topicadmin"
	"kafgo/broker/txn"
	"kafgo/broker/wire"
)

// Broker is one running kafgo broker.
type Broker struct {
	cfg    atomic.Pointer[config.Broker]
	static atomic.Pointer[config.Broker] // the configuration as started, before dynamic changes
	log    *slog.Logger

	store     meta.Store
	clusterID string
	logs      *storage.Manager
	cache     *clusterview.Cache
	replicas  *replica.Manager
	ctl       *controller.Controller
	admin     *topicadmin.Admin
	groups    *group.Coordinator
	health    *consumerHealth // the coordinated groups' consumer health
	// endOffsets reads partitions' high watermarks from their leaders
	// (consumer lag and health).
	endOffsets func(ctx context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64
	txns       *txn.Coordinator
	pids       *txn.ProducerIDs
	authz      *acl.Authorizer // nil without authorizer.class.name
	topics     *topicConfigs
	changes    *dynconfig.Changes // /config/changes
	quotas     *clientquota.Manager
	api        *api.Server
	net        *wire.Server
	ib         *interBroker
	peers      *peers
	dialer     *wire.Dialer // inter-broker listener's security
	creds      atomic.Pointer[credentials.Store]
	cc         *controllerClient
	adminHTTP  *admin.Server
	metrics    *metrics.Registry // Kafka's metric set, read by the admin endpoint

	// registered is set once /brokers/ids/<id> was created by this broker:
	// only a broker the controller knows has leaderships to hand over.
	registered  atomic.Bool
	brokerEpoch atomic.Int64
	ctlStarted  atomic.Bool // the controller's loop runs (Stop waits for it)

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// New prepares a broker from a validated configuration.
func New(cfg *config.Broker, logger *slog.Logger) *Broker {
	if logger == nil {
		logger = slog.Default()
	}
	b := &Broker{log: logger.With("broker", cfg.BrokerID), metrics: metrics.New()}
	b.cfg.Store(cfg)
	b.static.Store(cfg)
	return b
}

// Config is the broker's current configuration.
func (b *Broker) Config() *config.Broker { return b.cfg.Load() }

// Addr is the bound address of a listener (after Start).
func (b *Broker) Addr(listener string) net.Addr { return b.net.Addr(listener) }

// Start brings the broker up; it returns once the broker is registered and
// serving, or with the first error. Ending ctx interrupts start-up (the
// metadata store connection, log recovery, the wait for a registration
// to go away). After an error, Shutdown releases what Start acquired.
func (b *Broker) Start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel

	// Bind first: a port in use fails here, at once, before the metadata
	// store or the log dirs are touched, and port 0 is resolved before
	// anything is advertised. Clients connecting now wait in the backlog
	// until the listeners serve, below.
	if err := b.bind(b.Config()); err != nil {
		return err
	}
	cfg := b.Config()
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

	// The ACLs are loaded before any listener serves, as Kafka starts its
	// authorizer before accepting requests.
	if cfg.AuthorizerEnabled() {
		b.authz = acl.New(store, acl.Config{SuperUsers: cfg.SuperUsers, AllowIfNoACL: cfg.AllowEveryoneIfNoACLFound, Logger: b.log})
		if err := b.authz.Start(ctx); err != nil {
			return fmt.Errorf("broker: loading ACLs: %w", err)
		}
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.authz.Follow(runCtx) }()
	}
	creds := credentials.New(store, b.log)
	if err := creds.Load(ctx); err != nil {
		return err
	}
	b.creds.Store(creds)
	b.admin = &topicadmin.Admin{Store: store}
	b.topics = newTopicConfigs(store, b.Config, b.hostsTopic, b.log)
	defLog := partitionConfig(b.topicDefaults(), cfg.BrokerID).Log
	b.logs, err = storage.OpenManagerContext(ctx, storage.ManagerConfig{
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
		OnFlush:                 b.metrics.ObserveFlush,
	})
	if err != nil {
		return err
	}

	b.cache = clusterview.New()
	listener := cfg.InterBrokerListenerName
	b.peers = newPeers(b.cache, listener, b.dialer)
	b.ib = newInterBroker(cfg.BrokerID, b.peers)
	b.ctl = controller.New(controller.Config{
		BrokerID:               cfg.BrokerID,
		Sender:                 controllerSender{b.ib},
		Store:                  store,
		InterBrokerListener:    listener,
		DeleteTopicEnable:      cfg.DeleteTopicEnable,
		UncleanLeaderElection:  b.uncleanLeaderElection,
		AutoLeaderRebalance:    cfg.AutoLeaderRebalanceEnable,
		ImbalanceCheckInterval: time.Duration(cfg.LeaderImbalanceCheckIntervalSeconds) * time.Second,
		ImbalancePercentage:    int(cfg.LeaderImbalancePerBrokerPercentage),
		Logger:                 b.log,
		Metrics:                b.metrics,
	})
	b.cc = &controllerClient{ib: b.ib, ctl: b.ctl, cache: b.cache}
	b.replicas, err = replica.NewManager(replica.Config{
		BrokerID:  cfg.BrokerID,
		Logs:      b.logs,
		Cache:     b.cache,
		ConfigFor: func(t string) replica.PartitionConfig { return partitionConfig(b.topics.Effective(t), cfg.BrokerID) },
		LoadConfig: func(t string) (replica.PartitionConfig, error) {
			tc, err := b.topics.Load(t)
			return partitionConfig(tc, cfg.BrokerID), err
		},
		Controller:           b.cc,
		Dialer:               b.peers,
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
		Metrics:              b.metrics,
		// Set before any LeaderAndIsr can arrive (the listeners start below).
		OnLeadershipChange: func(tp partid.TopicPartition, leader bool, epoch int32) {
			b.groups.OnLeadershipChange(tp.Topic, tp.Partition, leader, epoch)
			b.txns.OnLeadershipChange(tp.Topic, tp.Partition, leader, epoch)
			if _, ok := b.replicas.Partition(tp); !ok {
				b.topics.release(tp.Topic)
			}
		},
	})
	if err != nil {
		return err
	}
	b.groups = group.New(groupConfig(cfg, b.log), internalTopicLog(b.replicas, group.OffsetsTopic), b.cache)
	b.pids = txn.NewProducerIDs(func(ctx context.Context) (int64, int64, error) {
		return znode.AllocateProducerIDBlock(ctx, store, cfg.BrokerID)
	})
	b.txns = txn.New(txnConfig(cfg, b.log), internalTopicLog(b.replicas, txn.TopicName), b.cache, b.pids.Next, markerSender{b})
	b.quotas = b.newClientQuotas(cfg)
	// /config/changes: each part follows the entity types it keeps.
	b.changes = dynconfig.NewChanges(store, b.log)
	b.topics.follow(b.changes, b.replicas.UpdateTopicConfig)
	b.changes.Register(dynconfig.Brokers, b.reloadBrokerConfig)
	b.followClientQuotas(b.changes)
	b.followCredentials(b.changes)
	b.reloadBrokerConfig(strconv.Itoa(int(cfg.BrokerID)))
	b.api = api.New(b.apiDeps())
	// The one cycle in the wiring: requests this broker sends itself (the
	// controller's, or a broker's to its own controller) run through the
	// API handlers, which reach the controller. It is closed here, before
	// any listener serves or the controller starts.
	b.ib.serveLocal(b.api)

	if err := b.net.Start(); err != nil {
		return err
	}
	b.endOffsets = admin.LeaderEndOffsets(cfg.BrokerID, b.cache, b.localHW, b.ib.Send, b.log)
	b.health = newConsumerHealth(b)
	if b.adminHTTP != nil {
		b.adminHTTP.Serve(admin.Source{
			BrokerID: cfg.BrokerID, ClusterID: b.clusterID, Replicas: b.replicas, Wire: b.net,
			ControllerID: func() int32 { return b.cache.View().ControllerID }, IsController: b.ctl.IsActive, ControllerEpoch: b.ctl.Epoch,
			ClientQuotas: b.quotas,
			Metrics:      b.metrics, Logs: b.logs, Controller: b.ctl.Stats, Groups: b.groups.Snapshot,
			EndOffsets: b.endOffsets, Txns: b.txns.Stats, Health: b.health.Groups,
			FetchSessions: b.api.FetchSessions, Pprof: cfg.AdminPprofEnable, Debug: b.debugHandlers(),
		})
	}

	// The notifications present now are marked seen: each part reads the
	// current state itself below (or as its partitions are created).
	_ = b.changes.SkipExisting(ctx)
	b.loadClientQuotas(ctx)
	b.topics.configureLoaded(b.logs.Logs(), cfg.BrokerID)
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.changes.Run(runCtx) }()
	b.logs.Start(runCtx)
	b.replicas.Start()
	b.groups.Start()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.health.run(runCtx, time.Duration(cfg.ConsumerHealthSampleIntervalMs)*time.Millisecond)
	}()
	b.txns.Start()
	if err := b.register(ctx); err != nil {
		return err
	}
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.keepRegistered(runCtx) }()
	b.ctl.Start()
	b.ctlStarted.Store(true)
	b.log.Info("broker started", "cluster_id", b.clusterID, "listeners", cfg.AdvertisedListeners, "embedded_metadata", cfg.Embedded())
	return nil
}

// bind binds the Kafka listeners and the admin endpoint without serving
// them yet, and advertises the bound ports where port 0 was asked for.
func (b *Broker) bind(cfg *config.Broker) error {
	sc, err := b.serverConfig(cfg)
	if err != nil {
		return err
	}
	if b.dialer, err = interBrokerDialer(cfg); err != nil {
		return err
	}
	// The handler is reached through b.api, set before the listeners
	// start accepting.
	b.net = wire.NewServer(sc, wire.HandlerFunc(func(req *wire.Request) wire.Pending { return b.api.Serve(req) }))
	if err := b.net.Listen(); err != nil {
		return err
	}
	if addr := cfg.AdminListener; addr != "" {
		s, err := admin.Listen(addr, b.log)
		if err != nil {
			return err
		}
		b.adminHTTP = s
	}
	b.fillAdvertisedPorts()
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

func (b *Broker) serverConfig(cfg *config.Broker) (wire.ServerConfig, error) {
	sc := wire.ServerConfig{
		MaxRequestSize:  cfg.SocketRequestMaxBytes,
		IdleTimeout:     time.Duration(cfg.ConnectionsMaxIdleMs) * time.Millisecond,
		SendBufferBytes: int(cfg.SocketSendBufferBytes),
		RecvBufferBytes: int(cfg.SocketReceiveBufferBytes),
		Limits:          b.connLimits(cfg),
		Logger:          b.log,
	}
	for _, l := range cfg.Listeners {
		lc, err := b.listenerConfig(cfg, l, &b.creds)
		if err != nil {
			return sc, err
		}
		sc.Listeners = append(sc.Listeners, lc)
	}
	return sc, nil
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
		b.static.Store(cfg)
	}
}

// register creates /brokers/ids/<id>. A registration left by this broker's
// previous process (kill -9) lives until ZooKeeper expires its session; like
// Kafka we wait for that rather than steal it, but only as long as an expiry
// can take: the session timeout, rounded up to the server's tick (at most
// half the timeout, as ZooKeeper's minimum session timeout is two ticks).
// A registration that outlives that belongs to another live broker with
// this broker.id.
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
	patience := 3 * time.Duration(cfg.ZooKeeperSessionTimeoutMs) * time.Millisecond / 2
	var giveUp time.Time
	for {
		_, err := b.store.Create(ctx, path, data, meta.Ephemeral)
		if err == nil {
			break
		}
		if !errors.Is(err, meta.ErrNodeExists) {
			return fmt.Errorf("broker: registering %s: %w", path, err)
		}
		_, stat, gerr := b.store.Get(ctx, path)
		if errors.Is(gerr, meta.ErrNoNode) {
			continue // it went away meanwhile: create again
		}
		if gerr != nil {
			return fmt.Errorf("broker: reading %s: %w", path, gerr)
		}
		if stat.EphemeralOwner == b.store.SessionID() {
			break // ours: an earlier create of this session that answered late
		}
		now := time.Now()
		switch {
		case giveUp.IsZero():
			giveUp = now.Add(patience)
			b.log.Warn("broker.id is already registered; waiting in case it is this broker's previous process, whose session has yet to expire",
				"path", path, "owner_session", fmt.Sprintf("0x%x", stat.EphemeralOwner), "up_to", patience)
		case now.After(giveUp):
			return fmt.Errorf("broker: broker.id %d is already registered at %s by another live ZooKeeper session (0x%x), still after %v: another broker is running with broker.id %d: %w",
				cfg.BrokerID, path, stat.EphemeralOwner, patience, cfg.BrokerID, meta.ErrNodeExists)
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
	b.registered.Store(true)
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
		// A broker that never registered has no leaderships to move, and
		// the controller would not know it.
		if cfg.ControlledShutdownEnable && !cfg.Embedded() && b.registered.Load() {
			b.controlledShutdown(ctx)
		}
		// Partitions being created for a LeaderAndIsr stop being created,
		// and CreateTopics waiting for leaders answer: the listeners drain
		// only once every request is answered.
		if b.replicas != nil {
			b.replicas.BeginShutdown()
		}
		if b.api != nil {
			b.api.BeginShutdown()
		}
		if b.ctlStarted.Load() {
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
		if err != nil {
			b.log.Warn("controlled shutdown failed; retrying", "attempt", attempt, "err", err)
		} else {
			b.log.Warn("controlled shutdown incomplete; retrying", "attempt", attempt, "code", resp.ErrorCode, "remaining", remaining(resp))
		}
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
		Authorizer:          b.authz,
		Logger:              b.log,
		ClientQuotas:        b.quotas,
		Credentials:         b.creds.Load(),
		Metrics:             b.metrics,
		Config:              b.Config,
		DescribedConfig:     b.describedConfig,
		QuotaConfigs:        clientquota.Store{Meta: b.store},
		Configs:             dynconfig.Store{Meta: b.store},
		NextProducerID:      b.pids.Next,
		RequestTimeout:      time.Duration(b.Config().RequestTimeoutMs) * time.Millisecond,
	}
}

// uncleanLeaderElection reads a topic's unclean.leader.election.enable from
// the store for the controller, as Kafka's does: this broker need not hold
// the topic. If the store cannot be read, no unclean election.
func (b *Broker) uncleanLeaderElection(topic string) bool {
	t, err := b.topics.Stored(topic)
	if err != nil {
		b.log.Warn("cannot read topic config; no unclean leader election", "topic", topic, "err", err)
		return false
	}
	return t.UncleanLeaderElectionEnable
}

// debugHandlers are the admin endpoint's test-only handlers: the API
// server's fault table in a build with the kafgo_faults tag, else none.
func (b *Broker) debugHandlers() map[string]http.Handler {
	if h := b.api.FaultsHandler(); h != nil {
		return map[string]http.Handler{api.FaultsPath: h}
	}
	return nil
}

// localHW is the high watermark of a partition this broker leads.
func (b *Broker) localHW(tp partid.TopicPartition) (int64, bool) {
	p, err := b.replicas.LeaderPartition(tp)
	if err != nil {
		return 0, false
	}
	return p.HighWatermark(), true
}

// hostsTopic reports whether some partition of topic is on this broker.
func (b *Broker) hostsTopic(topic string) bool {
	for _, p := range b.replicas.Partitions() {
		if p.TopicPartition().Topic == topic {
			return true
		}
	}
	return false
}

// reloadBrokerConfig applies the stored dynamic configs of this broker and
// the cluster default onto the static configuration.
func (b *Broker) reloadBrokerConfig(entity string) {
	self := strconv.Itoa(int(b.Config().BrokerID))
	if entity != self && entity != dynconfig.DefaultEntity {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	defer cancel()
	next, skipped, err := b.storedConfig(ctx)
	if err != nil {
		b.log.Warn("cannot read dynamic broker configs", "err", err)
		return
	}
	for _, err := range skipped {
		b.log.Warn("ignoring invalid dynamic broker config", "err", err)
	}
	b.cfg.Store(next)
	if d, o := next.DynamicDefaultConfigs(), next.DynamicBrokerConfigs(); len(d)+len(o) > 0 {
		b.log.Info("dynamic broker config applied", "entity", entity, "default", len(d), "own", len(o))
	}
	b.applyReplicationThrottle(next)
	b.net.SetConnLimits(b.connLimits(next))
	// Topic defaults may have changed with it.
	b.replicas.UpdateTopicConfigs(nil)
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
