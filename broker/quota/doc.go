// Package quota meters traffic against a rate limit with Kafka's Rate.
// A Quota holds replication traffic to a byte-rate limit, as Kafka's
// replication quotas (KIP-73) do: one Quota for the bytes a leader sends to
// throttled followers, one for the bytes a follower fetches for its
// throttled replicas, each limited by a dynamic broker config
// (leader.replication.throttled.rate, follower.replication.throttled.rate).
// A Meter is the Rate alone, which the client quotas (broker/clientquota)
// measure with, and ThrottleTime is Kafka's client throttle arithmetic.
//
// # Rate
//
// A Rate is Kafka's Rate over a SampledStat windowed sum: it keeps
// replication.quota.window.num samples of replication.quota.window.size.seconds
// each. Recording adds to the current sample, or starts the next one (reusing
// the oldest slot) once the current one is a window old. Measuring first
// resets every sample whose start is num*window or more in the past, then
//
//	rate = (sum of the samples) / elapsed
//	elapsed = now - start of the oldest sample,
//	          raised to (num-1) windows plus the part of the last one when shorter,
//	          at least 1 ms
//
// The floor of num-1 windows is Kafka's: a meter that has just started
// does not report a huge rate for the first bytes, so a throttled replica
// may move up to about limit*(num-1)*window bytes at once before the quota
// bites. A Quota is exceeded when the rate is strictly above its limit; the
// default limit, Long.MAX_VALUE, is never exceeded. Values recorded may be
// negative (a client fetch taken back after it was throttled), and each
// sample also counts its values, for Kafka's Avg (throttle-time metrics).
//
// # Throttle time
//
// A client over its quota is throttled for the time that brings its rate
// back to the limit if it sends nothing meanwhile: with O the rate just
// measured (including the request that broke the limit), T the limit and W
// the time the rate was measured over (elapsed, as above),
//
//	O*W / (W+X) = T  =>  X = (O-T)/T * W, rounded to the millisecond.
//
// # Throttled replicas
//
// Which partitions a quota applies to comes from the topic configs
// leader.replication.throttled.replicas and
// follower.replication.throttled.replicas: "*" (every partition of the topic,
// on every broker) or a comma list of partitionId:brokerId pairs, of which a
// broker keeps the partitions paired with its own id. Replicas in the ISR are
// never held back, though their traffic on a throttled partition is counted.
package quota
