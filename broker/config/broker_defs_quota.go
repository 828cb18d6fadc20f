package config

// Client quota keys (KafkaConfig's quota group). The quotas themselves are
// dynamic entity configs (/config/users, /config/clients); these shape how
// they are measured, and the two legacy static defaults give every client
// id a byte-rate quota when no dynamic one applies.
var quotaDefs = []Def{
	{Name: "quota.producer.default", Type: TypeLong, Default: longMax, checks: []check{atLeast(1)},
		Doc: "DEPRECATED: used only when no dynamic default quota is configured for <user>, <client-id> or <user, client-id>: any producer, distinguished by client id, is throttled above this many bytes per second."},
	{Name: "quota.consumer.default", Type: TypeLong, Default: longMax, checks: []check{atLeast(1)},
		Doc: "DEPRECATED: used only when no dynamic default quota is configured for <user>, <client-id> or <user, client-id>: any consumer, distinguished by client id, is throttled above this many bytes per second."},
	{Name: "quota.window.num", Type: TypeInt, Default: "11", checks: []check{atLeast(1)},
		Doc: "The number of samples to retain in memory for client quotas."},
	{Name: "quota.window.size.seconds", Type: TypeInt, Default: "1", checks: []check{atLeast(1)},
		Doc: "The time span of each sample for client quotas."},
}

// resolveQuotas derives the client quota fields.
func (r *resolver) resolveQuotas(b *Broker) {
	b.QuotaProducerDefault = r.i64("quota.producer.default")
	b.QuotaConsumerDefault = r.i64("quota.consumer.default")
	b.QuotaWindowNum = r.i32("quota.window.num")
	b.QuotaWindowSizeSeconds = r.i32("quota.window.size.seconds")
	b.MetricsNumSamples = r.i32("metrics.num.samples")
	b.MetricsSampleWindowMs = r.i64("metrics.sample.window.ms")
}
