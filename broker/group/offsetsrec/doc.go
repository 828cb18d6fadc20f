// Package offsetsrec encodes and decodes the records of Kafka's internal
// __consumer_offsets topic, byte for byte as Kafka's GroupMetadataManager
// writes them, so a kafgo log reads like a Kafka one (and the other way
// round). The bytes are franz-go's kmsg types (OffsetCommitKey/Value,
// GroupMetadataKey/Value), generated from Kafka's own JSON schemas; this
// package holds the versions kafgo reads and writes, the -1 defaults of
// fields a version lacks, and a strict reading (below). It does not import
// the broker, so offline tools (dump-log-segments) can use it.
//
// Both key and value start with an int16 schema version. Fields use Kafka's
// classic (non-flexible) struct encoding, big-endian:
//
//	STRING           int16 length + UTF-8 bytes
//	NULLABLE_STRING  int16 length, -1 = null
//	BYTES            int32 length + bytes (the broker never writes null)
//	ARRAY            int32 count + elements
//
// # Keys
//
//	version 0, 1   offset commit    group STRING, topic STRING, partition INT32
//	version 2      group metadata   group STRING
//
// Version 1 is what brokers since 0.10 write for offset commits; version 0
// has the same layout.
//
// # Offset commit value (null = the offset was deleted)
//
//	v0  offset INT64, metadata STRING, timestamp INT64
//	v1  offset INT64, metadata STRING, commit_timestamp INT64, expire_timestamp INT64
//	v2  offset INT64, metadata STRING, commit_timestamp INT64
//	v3  offset INT64, leader_epoch INT32, metadata STRING, commit_timestamp INT64
//
// Current brokers write v3, or v1 when the client asked for a retention time
// (OffsetCommit v2-v4), since only v1 can carry the expire timestamp.
//
// # Group metadata value (null = the group was deleted)
//
//	v0  protocol_type STRING, generation INT32, protocol NULLABLE_STRING,
//	    leader NULLABLE_STRING, members ARRAY
//	v1  as v0
//	v2  as v1, with current_state_timestamp INT64 after leader
//	v3  as v2
//
// and each member:
//
//	v0  member_id, client_id, client_host STRING, session_timeout INT32,
//	    subscription BYTES, assignment BYTES
//	v1  member_id, client_id, client_host, rebalance_timeout INT32,
//	    session_timeout, subscription, assignment
//	v2  as v1
//	v3  member_id, group_instance_id NULLABLE_STRING, client_id, client_host,
//	    rebalance_timeout, session_timeout, subscription, assignment
//
// Brokers since 2.3 write v3. An empty group is written with no members,
// a null protocol and a null leader. current_state_timestamp (-1 = unknown)
// is when the group entered its state; it makes offset expiry of an empty
// group (KIP-211) survive a coordinator move.
//
// Decoders check every length against the bytes that remain before they
// allocate (kmsg does), never panic, and accept only a record that is
// exactly the encoding of what it decodes to: trailing bytes, or a null
// where the schema has none, are malformed.
package offsetsrec
