// Package consumerhealth judges whether a consumer group keeps up: per
// partition the offset lag, the time lag, the lag's trend over a sliding
// window of commits, the consume and produce rates and an estimated time to
// catch up, and a status by Burrow's documented rules (linkedin/Burrow,
// "Consumer Lag Evaluation Rules"). It is a leaf with no dependency beyond
// the standard library, shared by the broker (which feeds it from the
// groups it coordinates and exports it on /metrics and /v1/consumer-health)
// and the tools that show it (kafgo groups --describe --health, kafgo tui).
//
// # The window
//
// For each group and partition the Tracker keeps the last Intervals
// commits (default 10, Burrow's intervals): the committed offset, when it
// was committed, and the lag then (the partition's high watermark minus the
// offset, 0 when negative). A commit is new when its commit time (or, when
// the feeder cannot know commit times, its offset) differs from the last
// one's; a commit closer than MinDistance to the previous one replaces it,
// keeping the earlier time (Burrow's min-distance, default 0). The Tracker
// also keeps the last high watermarks observed with their times, for the
// produce rate, and the recent lags for a sparkline.
//
// # Statuses (Burrow's constants)
//
//	OK       1  the consumer keeps up, or is catching up
//	WARNING  2  the lag never decreased across the window
//	ERROR    3  (Burrow's group status for STOP, STALL and REWIND; kafgo reports the partition status itself)
//	STOP     4  no commit for longer than the window spans (now - last > last - first)
//	STALL    5  commits keep coming but the offset does not move, with lag
//	REWIND   6  a committed offset went backwards
//
// The rules are Burrow's current ones (its evaluator's
// calculatePartitionStatus): a partition with no lag now is OK; else it is
// STOP if the commits stopped for longer than the window spans, unless one
// of the recent high watermarks (the last Intervals observed) was at or
// below the last committed offset (the group was caught up a moment ago);
// else, if no commit in the window was at lag 0, REWIND, STALL and WARNING
// are tried in that order; else OK. (Older Burrow releases checked the lag-0
// rule first, so a group that stopped right after catching up stayed OK
// for as long as those commits stayed in its window.) A group's status is
// its worst partition's (the highest constant). Burrow caps a group at
// ERROR; kafgo names the partition status that made it so.
//
// # Time lag and the time to catch up
//
// The time lag is now minus the timestamp of the first record after the
// committed offset (the next one the group will read), 0 when the group is
// caught up. When that record's timestamp is not known the time lag is
// interpolated from the high watermarks observed, as kafka-lag-exporter
// does: the time at which the log's end passed the committed offset.
//
// The consume rate is the committed offset's progress over the window, the
// produce rate the high watermark's. The estimated time to catch up is
// lag / (consume - produce) while the group consumes faster than producers
// write; otherwise it is the time the backlog alone takes at the consume
// rate (Catchup reports which), which grows for as long as producers
// outpace the group; with nothing consumed it is unknown.
package consumerhealth
