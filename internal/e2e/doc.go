// Package e2e holds end-to-end tests: real kafgo broker processes (and a
// real ZooKeeper where a cluster is needed) driven by real clients —
// franz-go, kcat (librdkafka) and kafka-python.
package e2e
