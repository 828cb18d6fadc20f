// Package api serves the Kafka protocol on top of the broker's parts: one
// file per API key (00_produce.go, 01_fetch.go, ...), each decoding its
// request with franz-go's kmsg, doing the work through the replica manager,
// the metadata cache, the controller or the group coordinator, and encoding
// a response at the request's version.
//
// Rules every handler follows:
//   - Each handler file registers its key and version range beside the
//     handler (regKey in an init, registry.go); ApiVersions advertises
//     exactly those ranges, and every registered version is served by the
//     handler (kmsg encodes the version-dependent fields; handlers fill
//     every field a version has). Inter-broker APIs are served at the
//     versions kafgo's controller and followers send. The group APIs start
//     at v0 where librdkafka's feature checks need them (its
//     balanced-consumer feature wants FindCoordinator 0, OffsetCommit 1-2,
//     OffsetFetch 1, JoinGroup/SyncGroup/Heartbeat/LeaveGroup 0) and end at
//     the last version before KIP-848 and share groups changed the
//     semantics; the transaction APIs are Kafka 2.8's, before KIP-890.
//   - An unknown API key, an unadvertised version or an undecodable body
//     closes the connection, as Kafka does; ApiVersions with a version too new
//     is answered in the v0 format with UNSUPPORTED_VERSION so the client can
//     retry lower (KIP-511).
//   - Errors reach clients as Kafka error codes from franz-go's kerr table:
//     each of the broker's sentinel errors carries its code where it is
//     declared (kafkaerr.Sentinel), and errCode (errors.go) reads it with
//     kafkaerr.Code; a handler's own refusal is kafkaerr.New via refuse,
//     with Kafka's message.
//   - Nothing a request carries is trusted: sizes, counts, offsets and
//     record bytes are validated before anything is stored.
//   - Every handler authorizes first, with Kafka 2.8's operation/resource
//     pairs and error codes, through authorize.go (s.authorize,
//     s.authorizeCluster, s.authorizedNames, s.clusterAction): a refused
//     request, topic or group is answered without being looked at, so
//     nothing leaks and nothing changes.
//   - Client quotas (quota.go) are settled in one place, after the handler's
//     reply: Produce charges its request size to the producer byte rate,
//     Fetch its response size to the consumer byte rate (before it
//     answers, since a throttled fetch is answered empty), and every
//     client request its handler time to the request quota; inter-broker
//     APIs, replica fetches and in-process calls are exempt. A throttle goes
//     into throttle_time_ms and mutes the connection (wire.ConnInfo.MuteUntil).
package api
