package tui

import (
	"sort"
	"time"
)

// Transactions is what the transaction coordinators report (KIP-664:
// ListTransactions, then DescribeTransactions of the open ones).
type Transactions struct {
	// Open are the transactions begun and not yet ended (Ongoing) or
	// ending (PrepareCommit, PrepareAbort, PrepareEpochFence), sorted by
	// transactional id.
	Open []Transaction
	// Idle counts the transactional ids with no open transaction.
	Idle int
	// Err is why the list is missing or incomplete, "" when it is not.
	Err string
}

// Transaction is one open transaction as its coordinator describes it.
type Transaction struct {
	ID          string
	Coordinator int32
	ProducerID  int64
	Epoch       int16
	State       string
	TimeoutMs   int32
	StartMs     int64    // when the transaction began, -1 unknown
	Partitions  []string // topic-partition, sorted by topic then partition
	Err         string   // DescribeTransactions' error for the id
}

// openTxnStates are the coordinator states of a transaction that has
// begun and not completed.
var openTxnStates = map[string]bool{"Ongoing": true, "PrepareCommit": true, "PrepareAbort": true, "PrepareEpochFence": true}

// Age is how long the transaction has been open at now, if its start is
// known.
func (x Transaction) Age(now time.Time) (time.Duration, bool) {
	if x.StartMs < 0 {
		return 0, false
	}
	return max(0, now.Sub(time.UnixMilli(x.StartMs))), true
}

// Overdue reports whether the transaction is open past its timeout: the
// coordinator should have aborted it, so it is hanging or about to be
// aborted.
func (x Transaction) Overdue(now time.Time) bool {
	age, ok := x.Age(now)
	return ok && x.TimeoutMs > 0 && age > time.Duration(x.TimeoutMs)*time.Millisecond
}

func (t *Transactions) normalize() {
	if t == nil {
		return
	}
	sort.Slice(t.Open, func(i, j int) bool { return t.Open[i].ID < t.Open[j].ID })
}
