package broker

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// topicConfigs caches each topic's config overrides from /config/topics and
// follows /config/changes, so a change made on any broker reaches every
// partition of the topic here.
type topicConfigs struct {
	admin    *controller.Admin
	store    meta.Store
	broker   func() *config.Broker
	log      *slog.Logger
	onTopic  func(topic string)  // a topic's config changed
	onBroker func(entity string) // a broker's dynamic config changed

	mu        sync.RWMutex
	overrides map[string]map[string]string
	lastSeq   int64 // newest notification applied; -1 before the first (they are numbered from 0)
}

// Overrides returns a topic's overrides, reading them on first use.
func (tc *topicConfigs) Overrides(topic string) map[string]string {
	tc.mu.RLock()
	o, ok := tc.overrides[topic]
	tc.mu.RUnlock()
	if ok {
		return o
	}
	return tc.reload(topic)
}

func (tc *topicConfigs) reload(topic string) map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o, err := tc.admin.TopicConfig(ctx, topic)
	if err != nil {
		tc.log.Warn("cannot read topic config; using defaults", "topic", topic, "err", err)
		return map[string]string{}
	}
	tc.mu.Lock()
	tc.overrides[topic] = o
	tc.mu.Unlock()
	return maps.Clone(o)
}

// Effective is the topic's config: overrides over the broker's defaults.
func (tc *topicConfigs) Effective(topic string) config.Topic {
	b := tc.broker()
	t, err := b.TopicConfig(tc.Overrides(topic))
	if err != nil {
		// Stored overrides were validated when written; a bad one (written
		// by another tool) falls back to the broker defaults.
		tc.log.Warn("invalid stored topic config; using broker defaults", "topic", topic, "err", err)
		t, _ = b.TopicConfig(nil)
	}
	return t
}

// follow watches /config/changes until ctx ends.
func (tc *topicConfigs) follow(ctx context.Context) {
	for ctx.Err() == nil {
		children, _, ev, err := tc.store.ChildrenW(ctx, znode.ConfigChangesPath)
		if err != nil {
			if errors.Is(err, meta.ErrNoNode) {
				_ = meta.EnsurePath(ctx, tc.store, znode.ConfigChangesPath)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		tc.process(ctx, children)
		select {
		case <-ctx.Done():
			return
		case <-ev:
		}
	}
}

// process applies notifications newer than the last seen, in sequence order,
// and removes notifications older than 15 minutes, as Kafka's listener does.
func (tc *topicConfigs) process(ctx context.Context, children []string) {
	for _, name := range children {
		if !strings.HasPrefix(name, znode.ConfigChangePrefix) {
			continue
		}
		seq, err := meta.SequenceNumber(name)
		if err != nil {
			continue
		}
		path := znode.ConfigChangesPath + "/" + name
		data, stat, err := tc.store.Get(ctx, path)
		if err != nil {
			continue
		}
		if time.Since(time.UnixMilli(stat.Ctime)) > 15*time.Minute {
			_ = tc.store.Delete(ctx, path, -1)
		}
		tc.mu.Lock()
		fresh := seq > tc.lastSeq
		if fresh {
			tc.lastSeq = seq
		}
		tc.mu.Unlock()
		if !fresh {
			continue
		}
		note, err := znode.ParseConfigChangeNotification(data)
		if err != nil {
			continue
		}
		typ, entity := note.Entity()
		switch typ {
		case znode.ConfigTypeTopic:
			tc.reload(entity)
			if tc.onTopic != nil {
				tc.onTopic(entity)
			}
		case znode.ConfigTypeBroker:
			if tc.onBroker != nil {
				tc.onBroker(entity)
			}
		}
	}
}

// skipExisting marks the notifications present at start-up as seen: the
// cache reads configs fresh on first use anyway.
func (tc *topicConfigs) skipExisting(ctx context.Context) {
	children, _, err := tc.store.Children(ctx, znode.ConfigChangesPath)
	if err != nil {
		return
	}
	for _, name := range children {
		if seq, err := meta.SequenceNumber(name); err == nil && seq > tc.lastSeq {
			tc.lastSeq = seq
		}
	}
}

func (tc *topicConfigs) forget(topic string) {
	tc.mu.Lock()
	delete(tc.overrides, topic)
	tc.mu.Unlock()
}
