package txnrec

// State is a transaction's status byte (Kafka's TransactionState).
type State int8

// The states, with Kafka's byte values.
const (
	Empty State = iota
	Ongoing
	PrepareCommit
	PrepareAbort
	CompleteCommit
	CompleteAbort
	Dead
	PrepareEpochFence
)

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// String is Kafka's name of the state, as DescribeTransactions and
// ListTransactions report it and dump-log-segments prints it.
func (s State) String() string {
	if s.Valid() {
		return stateNames[s]
	}
	return "Unknown"
}

// Valid reports whether s is one of Kafka's states.
func (s State) Valid() bool { return s >= Empty && s <= PrepareEpochFence }

// ParseState is the state of a name (ListTransactions' state filters).
func ParseState(name string) (State, bool) {
	for i, n := range stateNames {
		if n == name {
			return State(i), true
		}
	}
	return 0, false
}
