// Package metrics holds the broker's hot-path counters: lock-free atomics
// the request path adds to once per request or per partition, never per
// record, with every handle resolved ahead of time (a topic's counters hang
// off its replica.Partition, a request type's off a fixed array by API
// key). Nothing here allocates, takes a lock or looks up a label on the
// request path; broker/admin turns the counters into Prometheus series at
// scrape time, where the names and their convention are documented.
//
// The package is a leaf (it imports no broker package), so wire, replica,
// api and controller can all reach it.
//
// Families:
//   - Topics: Kafka's BrokerTopicMetrics per topic, and their all-topics
//     total, which survives the removal of a topic's counters (a counter
//     never goes down).
//   - Requests: Kafka's RequestMetrics per request name (Produce,
//     FetchConsumer, FetchFollower, ...): requests per version, responses
//     per error code, and the time histograms of a request's phases.
//   - Registry: the above plus the broker-wide counters and timers
//     (ReplicaManager ISR changes, ControllerStats elections, LogFlushStats).
//
// Histogram buckets are fixed, 1-2-5 steps from 1 µs to 50 s; Observe
// finds the bucket with one bits.Len64 and at most two comparisons, and
// costs two atomic adds.
package metrics
