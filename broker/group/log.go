package group

import "kafgo/broker/coordlog"

// Log is the coordinator's access to the __consumer_offsets partitions this
// broker leads. The broker passes one over its replica manager, appending
// with the coordinator origin (no sequence checks, as Kafka's group
// coordinator writes); tests pass an in-memory fake.
type Log = coordlog.Log

// AppendResult is an append in flight.
type AppendResult = coordlog.AppendResult
