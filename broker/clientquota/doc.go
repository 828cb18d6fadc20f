// Package clientquota is Kafka's client quotas (KIP-13, KIP-55, KIP-124,
// KIP-219, KIP-546) on one broker: the quota configs users and client ids
// have in the metadata store, which of them applies to a request, and how
// long a client over its quota is throttled.
//
// # Configs
//
// Three keys, on an entity's znode as Kafka's kafka-configs and
// AlterClientQuotas write them ({"version":1,"config":{...}}):
//
//	producer_byte_rate  LONG    bytes/s of Produce requests
//	consumer_byte_rate  LONG    bytes/s of Fetch responses (consumers, not followers)
//	request_percentage  DOUBLE  request handler time, percent of one thread
//
// for the entities
//
//	/config/users/<user>                       /config/clients/<client-id>
//	/config/users/<user>/clients/<client-id>   /config/clients/<default>
//	/config/users/<default>[/clients/...]      /config/users/<user>/clients/<default>
//
// with names sanitized (dynconfig.Sanitize) and <default> standing for every
// user or client id without a quota of its own. A change writes the znode
// and posts /config/changes/config_change_<seq> with the entity path
// ("users/alice/clients/c1"); every broker re-reads that entity (Update).
// A user's znode also holds its SCRAM credentials: Store changes only the
// quota keys, with a version check. Kafka's controller_mutation_rate
// (KIP-599) is not kept: kafgo does not enforce it, so it is refused.
//
// # Which quota applies
//
// A request from user U (the principal's name, ANONYMOUS before
// authentication) with client id C gets the first quota set among
//
//  1. /config/users/U/clients/C
//  2. /config/users/U/clients/<default>
//  3. /config/users/U
//  4. /config/users/<default>/clients/C
//  5. /config/users/<default>/clients/<default>
//  6. /config/users/<default>
//  7. /config/clients/C
//  8. /config/clients/<default>
//
// then the static quota.producer.default / quota.consumer.default (client
// id level), else none (Long.MAX_VALUE). The level that matched also picks
// the sensor, tagged (user, client-id) as Kafka tags its metrics: a user
// quota is shared by all the user's client ids (tags (U, "")), a client-id
// quota by every user of the client id (("", C)), and a default applies to
// each entity separately. As in Kafka, which levels have ever been
// configured since start decides the tags, and a sensor idle for an hour
// is dropped.
//
// # Throttling
//
// Each sensor keeps Kafka's Rate (broker/quota: quota.window.num samples
// of quota.window.size.seconds). A request's value is recorded first; if
// the rate then exceeds the limit, the client is throttled for
// (rate-limit)/limit * window (quota.ThrottleTime), bounded by the whole
// quota window (samples x window) for byte rates and by one window for
// the request quota (Kafka's ClientRequestQuotaManager bound). The caller
// puts the time in the response's throttle_time_ms, sends the response and
// mutes the connection for that long (KIP-219); a throttled fetch is
// answered empty and its bytes are taken back (Unrecord). Nothing is
// measured for a type until a quota of it was configured.
package clientquota
