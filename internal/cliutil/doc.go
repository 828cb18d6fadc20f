// Package cliutil holds what kafgo's client tools (topics, console, perf,
// groups) share: reading Java properties files and repeatable k=v flags, and
// turning Kafka's Java client property names (bootstrap.servers, acks,
// linger.ms, group.id, auto.offset.reset, ...) into franz-go kgo options, so
// that operators can reuse the client configs they already have for Kafka's
// own tools.
//
// Precedence follows Kafka's tools: a properties file (--command-config,
// --producer.config, --consumer.config) is loaded first, repeatable
// --*-property k=v flags override it, and a tool's dedicated flags (for
// example --compression-codec) override both when they are given.
//
// Property names that are accepted only for compatibility (serializer class
// names and the like) are consumed silently; names nobody reads are reported
// by Config.Unused so tools can warn as the Java client does.
//
// CommandError marks a failure a tool has already printed in Kafka's words,
// so that main does not print it again.
package cliutil
