// Package config is the broker and topic configuration of kafgo, with
// Kafka's server.properties and topic-config names, types, defaults and
// validation (Kafka 2.8/3.x in ZooKeeper mode).
//
// # Sources and precedence
//
// A broker key's value comes from the first of these that sets it:
//
//  1. dynamic per-broker config (Broker.Set; IncrementalAlterConfigs on
//     the broker's resource), source DYNAMIC_BROKER_CONFIG;
//  2. dynamic cluster default (Broker.SetClusterDefault; the broker
//     resource with an empty name), DYNAMIC_DEFAULT_BROKER_CONFIG;
//  3. static config: the config file, then KAFKA_<KEY> environment
//     variables over it, then command-line flags and --override over both,
//     STATIC_BROKER_CONFIG;
//  4. Kafka's default, DEFAULT_CONFIG.
//
// Some settings have several spellings, resolved after the layers above:
// log.retention.ms > log.retention.minutes > log.retention.hours (a
// negative result means forever, -1; zero is refused); log.roll.ms >
// log.roll.hours; log.roll.jitter.ms > log.roll.jitter.hours; log.dirs >
// log.dir; log.flush.interval.ms, else log.flush.scheduler.interval.ms;
// zookeeper.connection.timeout.ms, else zookeeper.session.timeout.ms;
// advertised.listeners, else listeners.
//
// A topic key's value is its override (/config/topics/<topic>), else the
// broker's effective value of its synonym (retention.ms ← log.retention.ms
// and its spellings, segment.bytes ← log.segment.bytes, max.message.bytes ←
// message.max.bytes, ...), else Kafka's topic default.
//
// # File formats
//
// A Java properties file (server.properties: by its .properties, .props or
// .conf extension, or a first setting written key=value) is read as
// Kafka's Utils.loadProps reads it (see load.go and package javaprops):
// ISO-8859-1, a repeated key's last value winning and reported. Kafka keys
// kafgo does not define are translated, ignored or refused, and keys it
// defines but does not act on are reported (compat.go, Broker.Notices).
// Environment variables follow the Apache Kafka and Confluent images
// (EnvKey).
//
// A YAML config file has Kafka's dotted names as keys:
//
//	broker.id: 0
//	listeners: PLAINTEXT://127.0.0.1:9092
//	log.dirs: ./data
//
// Nested mappings join their keys with dots (log: {dirs: ./data} is
// log.dirs); a YAML list is accepted where Kafka takes a comma list
// (listeners, log.dirs, log.cleanup.policy, ...) and a YAML mapping where
// it takes NAME:VALUE pairs (listener.security.protocol.map). Scalars are
// read as written, with Kafka's parsing: booleans are true or false only,
// integers plain decimal. A null value (key: or key: ~) leaves the key at
// its default. A key given twice, in any spelling, is refused, as are
// unknown keys and bad values; errors carry the file name and line.
//
// # Decisions where Kafka leaves a choice
//
//   - Metadata store: no zookeeper.connect selects the embedded
//     single-broker store; Kafka would refuse to start.
//   - broker.id -1 (the default): 0 on the embedded store. With
//     zookeeper.connect it stays -1 in BrokerID and the metadata store
//     generates one above reserved.broker.max.id, as Kafka does, and sets
//     BrokerID (or refuses, when broker.id.generation.enable is false, which
//     Load already checks).
//   - Security: listeners map to PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL,
//     several at once. TLS material is PEM only (KIP-651; JKS and PKCS12
//     files are refused with advice to convert), SASL mechanisms are PLAIN,
//     SCRAM-SHA-256 and SCRAM-SHA-512 (GSSAPI, Kafka's default, and
//     OAUTHBEARER are refused when a SASL listener would use them). Every
//     ssl.* key, sasl.enabled.mechanisms, sasl.server.max.receive.size and
//     connections.max.reauth.ms may be overridden per listener as
//     listener.name.<listener in lower case>.<key>; sasl.jaas.config and
//     connections.max.reauth.ms per listener and mechanism as
//     listener.name.<listener>.<mechanism in lower case>.<key>. Problems
//     (a TLS listener without a key store, PLAIN without users, an
//     inter-broker mechanism the inter-broker listener does not enable) are
//     refused at start-up naming the key. Files are read when the broker
//     starts, not here.
//   - Advertised listeners with an empty host advertise os.Hostname(), as
//     Kafka advertises the local host name, or 127.0.0.1 if the OS cannot
//     name itself. 0.0.0.0 (and ::) are refused as advertised hosts, so
//     listeners on 0.0.0.0 need advertised.listeners. Port 0 is passed
//     through; the server patches the bound port into both lists.
//   - Class-typed keys (authorizer.class.name, metric.reporters,
//     principal.builder.class, the policy classes): accepted only empty or at
//     Kafka's default class, because Java plugins cannot be loaded and
//     silently dropping one, an authorizer above all, would be unsafe. The
//     exception is authorizer.class.name=kafka.security.authorizer.AclAuthorizer
//     (or kafka.security.auth.SimpleAclAuthorizer), which kafgo implements
//     itself (package acl), with super.users and
//     allow.everyone.if.no.acl.found.
//   - Keys Kafka removed (host.name, port, ...) and KRaft keys (process.roles,
//     node.id, ...) are refused with advice; unknown keys suggest the
//     nearest known key.
//   - compression.type: Kafka's broker-side names (uncompressed, not none).
//   - A few keys Kafka leaves unchecked but that fail at runtime are range
//     checked (negative timeouts, socket buffers of 0,
//     group.min.session.timeout.ms above the max).
//   - admin.listener (kafgo only): host:port of the HTTP admin endpoint
//     (/metrics, /v1 JSON). Default empty, off, so several brokers on one
//     host never collide and nothing listens unasked; examples/dev.yaml sets
//     127.0.0.1:9644.
//   - admin.pprof.enable (kafgo only, default false): serve Go's profiles
//     (net/http/pprof) at /debug/pprof/ on admin.listener, e.g.
//     go tool pprof http://127.0.0.1:9644/debug/pprof/profile?seconds=30.
//   - listeners, advertised.listeners and listener.security.protocol.map are
//     read-only here (dynamic in Kafka): rebinding a live listener is not
//     supported.
//   - leader.replication.throttled.rate and follower.replication.throttled.rate
//     are honoured in the config file too, where Kafka documents them as
//     settable only dynamically (IncrementalAlterConfigs, as
//     kafka-reassign-partitions --throttle does). A static value is a
//     starting rate; dynamic values win over it as for any dynamic key.
//
// # SASL users
//
// PLAIN users come from the listener's JAAS config, in Kafka's form:
//
//	listener.name.sasl_ssl.plain.sasl.jaas.config: >-
//	  org.apache.kafka.common.security.plain.PlainLoginModule required
//	  username="admin" password="admin-secret"
//	  user_admin="admin-secret" user_alice="alice-secret";
//
// Each user_<name>="<password>" option defines a user. username and
// password are the broker's own credentials, used when this is the
// inter-broker listener and sasl.mechanism.inter.broker.protocol is PLAIN.
// SCRAM users live in the metadata store (/config/users, written by kafgo
// configs --entity-type users or AlterUserScramCredentials);
// listener.name.<l>.scram-sha-512.sasl.jaas.config
// (org.apache.kafka.common.security.scram.ScramLoginModule required
// username="..." password="...";) only holds the broker's own inter-broker
// credentials. A static JAAS file (java.security.auth.login.config) is not
// read.
//
// # Errors
//
// Every refusal is an *Error naming the key and the value (hidden for
// password keys) and, for files, the line; it wraps one of ErrUnknownKey,
// ErrInvalidValue, ErrReadOnly, ErrDuplicateKey or ErrUnsupported. When
// several entries are wrong, all are reported, joined.
package config
