package controller

import "slices"

// autoRebalance is auto.leader.rebalance.enable's periodic check: for each
// broker, if more than leader.imbalance.per.broker.percentage of the
// partitions it prefers are led elsewhere, move them back where it is live
// and in sync.
func (c *Controller) autoRebalance() {
	st := c.st
	if st == nil {
		return
	}
	preferredOf := map[int32][]tp{}
	for _, p := range st.partitions() {
		if rs := st.replicas(p); len(rs) > 0 && st.deleting[p.Topic] == nil {
			preferredOf[rs[0]] = append(preferredOf[rs[0]], p)
		}
	}
	b := c.newBatch()
	for _, broker := range sortedKeys(preferredOf) {
		if !st.eligible(broker) {
			continue
		}
		parts := preferredOf[broker]
		var misled []tp
		for _, p := range parts {
			if ps := st.partState(p); ps != nil && ps.exists && ps.leader != broker {
				misled = append(misled, p)
			}
		}
		if len(misled)*100 <= c.cfg.ImbalancePercentage*len(parts) {
			continue
		}
		c.log.Info("leader imbalance; electing preferred leaders", "broker", broker, "imbalanced", len(misled), "preferred", len(parts))
		var changes []change
		for _, p := range misled {
			if ps := st.partState(p); slices.Contains(ps.isr, broker) {
				changes = append(changes, change{p, broker, ps.isr})
			}
		}
		c.changeStates(b, changes)
	}
	b.send()
}
