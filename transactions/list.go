package transactions

import (
	"cmp"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

var listHeaders = []string{"TransactionalId", "Coordinator", "ProducerId", "TransactionState"}

// list is the list command: every broker's transactions (ListTransactions
// to all brokers), grouped by coordinator.
func list(ctx context.Context, adm *kadm.Client, out, errOut io.Writer) error {
	listed, err := adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		return failure(errOut, "Failed to list transactions", err)
	}
	all := listed.Sorted()
	slices.SortStableFunc(all, func(a, b kadm.ListedTransaction) int {
		if c := cmp.Compare(a.Coordinator, b.Coordinator); c != 0 {
			return c
		}
		return strings.Compare(a.TxnID, b.TxnID)
	})
	rows := make([][]string, 0, len(all))
	for _, l := range all {
		rows = append(rows, []string{l.TxnID, strconv.Itoa(int(l.Coordinator)), strconv.FormatInt(l.ProducerID, 10), l.State})
	}
	printTable(out, listHeaders, rows)
	return nil
}
