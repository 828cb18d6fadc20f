package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Set changes a dynamic key for this broker, as IncrementalAlterConfigs
// SET on the broker's resource does. Unknown keys, read-only keys and bad
// values are refused naming the key; so is a value that breaks a rule
// spanning keys, in which case nothing changes. The new value wins over
// the cluster default and the static config, though a higher-precedence
// spelling still wins (log.retention.ms set statically beats a dynamic
// log.retention.hours, as in Kafka).
func (b *Broker) Set(name, value string) error {
	return b.update(name, value, false, false)
}

// SetClusterDefault changes a dynamic key's cluster-wide default (the
// broker resource with an empty name). A per-broker dynamic value still
// wins over it.
func (b *Broker) SetClusterDefault(name, value string) error {
	return b.update(name, value, true, false)
}

// Reset removes this broker's dynamic value of a key (IncrementalAlterConfigs
// DELETE), so the cluster default, static or default value applies again.
// Resetting a key that has no dynamic value is a no-op.
func (b *Broker) Reset(name string) error {
	return b.update(name, "", false, true)
}

// ResetClusterDefault removes a key's dynamic cluster-wide default.
func (b *Broker) ResetClusterDefault(name string) error {
	return b.update(name, "", true, true)
}

func (b *Broker) update(name, value string, clusterDefault, remove bool) error {
	d, ok := lookupDef(name)
	if !ok {
		return unknownKeyError(name, value, brokerIndex)
	}
	if !d.Dynamic {
		return keyError(name, value, fmt.Errorf("%w (change it in the config file and restart the broker)", ErrReadOnly))
	}
	var cv string
	if !remove {
		var err error
		if cv, err = d.canonical(value); err != nil {
			return err
		}
	}
	l := b.ls().clone()
	layer := l.dynBroker
	if clusterDefault {
		layer = l.dynDefault
	}
	if remove {
		delete(layer, name)
	} else {
		layer[name] = cv
	}
	nb, err := resolve(l)
	if err != nil {
		return err
	}
	if err := checkReconfiguration(d, b, nb); err != nil {
		return keyError(name, value, err)
	}
	// Fields the server fills in itself survive the rebuild (see Broker).
	nb.BrokerID, nb.Listeners, nb.AdvertisedListeners = b.BrokerID, b.Listeners, b.AdvertisedListeners
	*b = *nb
	return nil
}

// checkReconfiguration applies Kafka's limits on how far a running pool
// may be resized at once (DynamicThreadPool, LogCleaner): no less than half,
// no more than double the current size, so a typo cannot stall or swamp the
// broker.
func checkReconfiguration(d *Def, old, cur *Broker) error {
	var before, after int32
	switch d.Name {
	case "num.io.threads":
		before, after = old.NumIoThreads, cur.NumIoThreads
	case "num.network.threads":
		before, after = old.NumNetworkThreads, cur.NumNetworkThreads
	case "num.replica.fetchers":
		before, after = old.NumReplicaFetchers, cur.NumReplicaFetchers
	case "num.recovery.threads.per.data.dir":
		before, after = old.NumRecoveryThreadsPerDataDir, cur.NumRecoveryThreadsPerDataDir
	case "background.threads":
		before, after = old.BackgroundThreads, cur.BackgroundThreads
	case "log.cleaner.threads":
		before, after = old.LogCleanerThreads, cur.LogCleanerThreads
		if after < 1 {
			return fmt.Errorf("%w: log cleaner threads cannot be set below 1 at runtime", ErrInvalidValue)
		}
	default:
		return nil
	}
	if after < before/2 {
		return fmt.Errorf("%w: cannot shrink below half the current value %s at once", ErrInvalidValue, strconv.Itoa(int(before)))
	}
	if after > before*2 {
		return fmt.Errorf("%w: cannot grow beyond double the current value %s at once", ErrInvalidValue, strconv.Itoa(int(before)))
	}
	return nil
}

// WithDynamic is b (the static configuration) with the dynamic configs
// stored for the cluster default and for this broker applied over it
// (/config/brokers/<default> and /config/brokers/<id>), Kafka's layering:
// per-broker over cluster default over static. Keys go in sorted order, so
// a rule spanning keys refuses the same one every time. A stored value
// that does not apply (invalid, or written by another tool) is left out
// and returned in skipped; b itself is not changed.
func (b *Broker) WithDynamic(clusterDefault, perBroker map[string]string) (next *Broker, skipped []error) {
	next = b.Clone()
	for _, k := range slices.Sorted(maps.Keys(clusterDefault)) {
		if err := next.SetClusterDefault(k, clusterDefault[k]); err != nil {
			skipped = append(skipped, fmt.Errorf("dynamic default config %s: %w", k, err))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(perBroker)) {
		if err := next.Set(k, perBroker[k]); err != nil {
			skipped = append(skipped, fmt.Errorf("dynamic config %s of broker %d: %w", k, b.BrokerID, err))
		}
	}
	return next, skipped
}
