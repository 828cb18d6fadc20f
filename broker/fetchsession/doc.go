// Package fetchsession is the broker side of incremental fetch sessions
// (KIP-227, Fetch v7+), as Kafka's FetchSession.scala: a per-broker cache of
// sessions, each remembering the partitions a fetcher follows and what it
// was last told about them, so a fetcher sends only the partitions whose
// position changed and gets back only the partitions with something new.
//
// # Protocol
//
// A Fetch carries session_id and session_epoch:
//
//	epoch 0 (INITIAL)    full fetch: the partitions are all in the request;
//	                     a session_id other than 0 closes that session; the
//	                     answer (every partition) carries a new session id,
//	                     or 0 when the cache has no room.
//	epoch -1 (FINAL)     full fetch without a session (closing session_id,
//	                     if any); the answer carries session id 0.
//	epoch > 0            incremental: session_id must name a session
//	                     (else FETCH_SESSION_ID_NOT_FOUND) whose expected
//	                     epoch is this one (else INVALID_FETCH_SESSION_EPOCH).
//	                     The request's partitions are added to the session or
//	                     update it, forgotten_topics_data leaves it; the fetch
//	                     reads every partition of the session, in the
//	                     session's order, and answers only those with records,
//	                     an error, or a high watermark or log start offset
//	                     other than the last one sent. A session left with no
//	                     partitions is closed and the request served without.
//
// The expected epoch starts at 1 and goes up by one per incremental fetch,
// wrapping from MaxInt32 to 1. A partition that returned records moves to
// the end of its session, so one that a response size limit left out is
// read first next time (no starvation). A partition answered with an error
// has its remembered high watermark reset to -1, so it is sent again once
// the error clears.
//
// # Cache and eviction
//
// The cache holds at most max.incremental.fetch.session.cache.slots sessions
// (default 1000). Sessions of followers are privileged. When a full fetch
// asks for a session and the cache is full, one session may be evicted, by
// Kafka's rules:
//
//  1. the least recently used session, if unused for EvictionAge (2 min);
//  2. else the smallest evictable session (ordered by privileged, then
//     partition count, then id) if the new one is not smaller: a privileged
//     newcomer may evict any unprivileged session, and any session older
//     than EvictionAge; an unprivileged one only sessions older than
//     EvictionAge, and only for more partitions than they hold.
//
// Evictability is judged when a session is last used (touched), as Kafka's
// sorted maps are updated then.
package fetchsession
