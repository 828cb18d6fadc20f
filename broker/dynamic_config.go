package broker

import (
	"context"
	"fmt"
	"strconv"

	"kafgo/broker/config"
	"kafgo/broker/meta/dynconfig"
)

// storedConfig is this broker's configuration with the dynamic configs the
// store holds now for it and for the cluster default (/config/brokers/<id>
// and /config/brokers/<default>) applied over the static one
// (config.Broker.WithDynamic): what Config returns once the change
// notifications are applied. Stored values that do not apply (invalid,
// written by another tool) are left out and returned in skipped.
func (b *Broker) storedConfig(ctx context.Context) (cfg *config.Broker, skipped []error, err error) {
	static := b.static.Load()
	store := dynconfig.Store{Meta: b.store}
	def, err := store.Read(ctx, dynconfig.Brokers, dynconfig.DefaultEntity)
	if err != nil {
		return nil, nil, fmt.Errorf("broker: reading the default broker config: %w", err)
	}
	self := strconv.Itoa(int(static.BrokerID))
	own, err := store.Read(ctx, dynconfig.Brokers, self)
	if err != nil {
		return nil, nil, fmt.Errorf("broker: reading the config of broker %s: %w", self, err)
	}
	next, skipped := static.WithDynamic(def, own)
	return next, skipped, nil
}

// describedConfig is the configuration DescribeConfigs shows for this
// broker: the stored one, so a change made through any broker shows at
// once; the running one if the store cannot be read.
func (b *Broker) describedConfig(ctx context.Context) *config.Broker {
	cfg, _, err := b.storedConfig(ctx)
	if err != nil {
		b.log.Warn("cannot read dynamic broker configs; describing the running config", "err", err)
		return b.Config()
	}
	return cfg
}
