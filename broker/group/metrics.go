package group

// GroupSnapshot is one group as the metrics see it.
type GroupSnapshot struct {
	ID      string
	State   State
	Members int
	// Offsets are the committed offsets (transactional ones still pending
	// are not committed yet).
	Offsets map[TopicPartition]int64
	// CommitTimes are when each offset was committed (ms), for consumer
	// health: a commit of the same offset again is still a commit.
	CommitTimes map[TopicPartition]int64
}

// Snapshot lists the groups of the loaded partitions this broker
// coordinates (Kafka's GroupMetadataManager gauges count these), with
// their committed offsets for consumer lag. It locks one group at a time;
// it runs at scrape time, never on a request's path.
func (c *Coordinator) Snapshot() []GroupSnapshot {
	shards, _ := c.activeShards()
	var out []GroupSnapshot
	for _, sh := range shards {
		for _, g := range c.groupsOf(sh) {
			g.mu.Lock()
			s := GroupSnapshot{ID: g.id, State: g.state, Members: len(g.members), Offsets: make(map[TopicPartition]int64, len(g.offsets)),
				CommitTimes: make(map[TopicPartition]int64, len(g.offsets))}
			for tp, o := range g.offsets {
				s.Offsets[tp] = o.offset
				s.CommitTimes[tp] = o.commitTime
			}
			g.mu.Unlock()
			out = append(out, s)
		}
	}
	return out
}
