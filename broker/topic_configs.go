package broker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kafgo/broker/config"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/partid"
	"kafgo/broker/storage"
)

// storeReadTimeout bounds one read of the metadata store for a config.
const storeReadTimeout = 10 * time.Second

// topicConfigs keeps the config overrides of the topics with a partition on
// this broker, as Kafka's logs keep theirs: read from /config/topics/<t>
// when a partition's log is created (or found on disk at start-up), re-read when /config/changes says
// the topic changed, and dropped when the topic's last partition leaves. So
// a topic deleted and re-created under the same name starts from what the
// store holds for the new topic, on every broker. DescribeConfigs and
// AlterConfigs read the store themselves, so they see a change made through
// any broker at once.
type topicConfigs struct {
	configs dynconfig.Store
	broker  func() *config.Broker
	hosted  func(topic string) bool // some partition of topic is on this broker
	log     *slog.Logger

	// loadMu makes each store read and the cache write after it one step,
	// so a read that saw an older value never overwrites a newer one: the
	// reads of one store session see its changes in order.
	loadMu    sync.Mutex
	mu        sync.RWMutex
	overrides map[string]map[string]string // read-only once stored
}

func newTopicConfigs(store meta.Store, broker func() *config.Broker, hosted func(topic string) bool, log *slog.Logger) *topicConfigs {
	return &topicConfigs{configs: dynconfig.Store{Meta: store}, broker: broker, hosted: hosted, log: log, overrides: map[string]map[string]string{}}
}

// follow registers for topics' change notifications: a kept topic's
// overrides are read again, then onTopic tells its partitions here.
func (tc *topicConfigs) follow(changes *dynconfig.Changes, onTopic func(topic string)) {
	changes.Register(dynconfig.Topics, func(topic string) {
		if tc.refresh(topic) {
			onTopic(topic)
		}
	})
}

// read reads a topic's overrides from the store.
func (tc *topicConfigs) read(topic string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	defer cancel()
	o, err := tc.configs.Read(ctx, dynconfig.Topics, topic)
	if err != nil {
		return nil, fmt.Errorf("broker: reading the config of topic %s: %w", topic, err)
	}
	return o, nil
}

// Load reads a topic's config from the store and keeps its overrides for
// its partitions here: one of them is being created.
func (tc *topicConfigs) Load(topic string) (config.Topic, error) {
	tc.loadMu.Lock()
	defer tc.loadMu.Unlock()
	o, err := tc.loadLocked(topic)
	if err != nil {
		return config.Topic{}, err
	}
	return tc.effective(topic, o), nil
}

func (tc *topicConfigs) loadLocked(topic string) (map[string]string, error) {
	o, err := tc.read(topic)
	if err != nil {
		return nil, err
	}
	tc.mu.Lock()
	tc.overrides[topic] = o
	tc.mu.Unlock()
	return o, nil
}

// Stored is a topic's config as the store holds it now, not kept.
func (tc *topicConfigs) Stored(topic string) (config.Topic, error) {
	o, err := tc.read(topic)
	if err != nil {
		return config.Topic{}, err
	}
	return tc.effective(topic, o), nil
}

// Effective is the topic's config for its partitions here: the kept
// overrides over the broker's current defaults. A topic with no partition
// here is read from the store.
func (tc *topicConfigs) Effective(topic string) config.Topic {
	tc.mu.RLock()
	o, ok := tc.overrides[topic]
	tc.mu.RUnlock()
	if !ok {
		var err error
		if o, err = tc.read(topic); err != nil {
			tc.log.Warn("cannot read topic config; using broker defaults", "topic", topic, "err", err)
		}
	}
	return tc.effective(topic, o)
}

func (tc *topicConfigs) effective(topic string, overrides map[string]string) config.Topic {
	b := tc.broker()
	t, err := b.TopicConfig(overrides)
	if err != nil {
		// Stored overrides were validated when written; a bad one (written
		// by another tool) falls back to the broker defaults.
		tc.log.Warn("invalid stored topic config; using broker defaults", "topic", topic, "err", err)
		t, _ = b.TopicConfig(nil)
	}
	return t
}

// configureLoaded gives the logs found on disk at start-up their topics'
// stored configs before retention or the cleaner look at them: they were
// opened with the broker defaults, where Kafka's LogManager loads each log
// with its topic's config from ZooKeeper. A topic whose config cannot be
// read keeps the defaults until one of its partitions is created here,
// which reads it again.
func (tc *topicConfigs) configureLoaded(logs map[partid.TopicPartition]*storage.Log, brokerID int32) {
	loaded := map[string]*storage.LogConfig{}
	for tp, l := range logs {
		lc, seen := loaded[tp.Topic]
		if !seen {
			if t, err := tc.Load(tp.Topic); err != nil {
				tc.log.Warn("cannot read topic config; its logs keep the broker defaults for now", "topic", tp.Topic, "err", err)
			} else {
				c := partitionConfig(t, brokerID).Log
				lc = &c
			}
			loaded[tp.Topic] = lc
		}
		if lc != nil {
			l.UpdateConfig(*lc)
		}
	}
}

// refresh re-reads a kept topic's overrides after a change notification.
// It reports whether the topic is kept; others are not read: a partition
// created later reads the store itself.
func (tc *topicConfigs) refresh(topic string) bool {
	tc.loadMu.Lock()
	defer tc.loadMu.Unlock()
	tc.mu.RLock()
	_, kept := tc.overrides[topic]
	tc.mu.RUnlock()
	if !kept {
		return false
	}
	if _, err := tc.loadLocked(topic); err != nil {
		tc.log.Warn("cannot re-read changed topic config; keeping the previous one", "topic", topic, "err", err)
	}
	return true
}

// release drops a topic's overrides once none of its partitions is on this
// broker any more (the topic was deleted, or moved away).
func (tc *topicConfigs) release(topic string) {
	if tc.hosted(topic) {
		return
	}
	tc.loadMu.Lock()
	tc.mu.Lock()
	delete(tc.overrides, topic)
	tc.mu.Unlock()
	tc.loadMu.Unlock()
}
