package broker

import (
	"context"
	"strings"
	"time"

	"kafgo/broker/clientquota"
	"kafgo/broker/config"
	"kafgo/broker/meta/dynconfig"
)

// newClientQuotas builds the client quota manager with the broker's
// static quota settings; the dynamic quotas come from the store
// (loadClientQuotas, then reloadClientQuota on each notification).
func (b *Broker) newClientQuotas(cfg *config.Broker) *clientquota.Manager {
	return clientquota.NewManager(clientquota.Config{
		Samples:         int(cfg.QuotaWindowNum),
		Window:          time.Duration(cfg.QuotaWindowSizeSeconds) * time.Second,
		ProducerDefault: cfg.QuotaProducerDefault,
		ConsumerDefault: cfg.QuotaConsumerDefault,
		MetricSamples:   int(cfg.MetricsNumSamples),
		MetricWindow:    time.Duration(cfg.MetricsSampleWindowMs) * time.Millisecond,
		Logger:          b.log.With("component", "clientquota"),
	})
}

// loadClientQuotas applies every user and client-id config the store
// holds, as Kafka's DynamicConfigManager does at start-up. It runs after
// the existing notifications were marked seen, so a change made
// meanwhile still arrives as a notification.
func (b *Broker) loadClientQuotas(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, storeReadTimeout)
	defer cancel()
	all, err := clientquota.Store{Meta: b.store}.All(ctx)
	if err != nil {
		b.log.Warn("cannot read client quota configs; none applied until they change", "err", err)
		return
	}
	for e, cfg := range all {
		b.quotas.Update(e, cfg)
	}
}

// reloadClientQuota re-reads one user or client-id entity after a change
// notification (entity path users/<u>, users/<u>/clients/<c>,
// clients/<c>).
func (b *Broker) reloadClientQuota(entityType, name string) {
	e, err := clientquota.ParseEntity(entityType, name)
	if err != nil {
		b.log.Warn("ignoring config change of an unknown quota entity", "entity_type", entityType, "entity", name, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	defer cancel()
	cfg, err := clientquota.Store{Meta: b.store}.Read(ctx, e)
	if err != nil {
		b.log.Warn("cannot re-read changed client quota; keeping the previous one", "entity", e.String(), "err", err)
		return
	}
	b.quotas.Update(e, cfg)
}

// followClientQuotas registers for the change notifications of users,
// users' client ids and client ids: the quotas of the entity are read
// again.
func (b *Broker) followClientQuotas(changes *dynconfig.Changes) {
	for _, typ := range []string{dynconfig.Users, dynconfig.Clients} {
		changes.Register(typ, func(name string) { b.reloadClientQuota(typ, name) })
	}
}

// followCredentials registers for users' change notifications: a user's
// own znode (not a user's client-id entity, users/<u>/clients/<c>) also
// holds its SCRAM credentials, which are read again.
func (b *Broker) followCredentials(changes *dynconfig.Changes) {
	changes.Register(dynconfig.Users, func(name string) {
		if strings.Contains(name, "/") {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
		defer cancel()
		if err := b.creds.Load().Refresh(ctx, name); err != nil {
			b.log.Warn("cannot reload user credentials", "user", name, "err", err)
		}
	})
}
