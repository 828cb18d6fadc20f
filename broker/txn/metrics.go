package txn

// Stats are the transaction coordinator's counts, for the metrics.
type Stats struct {
	// PartitionsLoaded and PartitionsLoading are the __transaction_state
	// partitions this broker leads, loaded or still being replayed.
	PartitionsLoaded, PartitionsLoading int
	// Transactions counts the transactional ids of the loaded partitions
	// by state name (Ongoing, PrepareCommit, CompleteCommit, ...).
	Transactions map[string]int
}

// Stats counts, at scrape time, what this coordinator holds.
func (c *Coordinator) Stats() Stats {
	out := Stats{Transactions: map[string]int{}}
	c.mu.RLock()
	for _, sh := range c.shards {
		if sh.loading {
			out.PartitionsLoading++
		} else {
			out.PartitionsLoaded++
		}
	}
	c.mu.RUnlock()
	shards, _ := c.activeShards()
	for _, sh := range shards {
		for _, m := range c.metasOf(sh) {
			m.mu.Lock()
			if !m.removed && m.state != Dead {
				out.Transactions[m.state.String()]++
			}
			m.mu.Unlock()
		}
	}
	return out
}
