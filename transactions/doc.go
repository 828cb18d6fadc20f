// Package transactions is kafka-transactions.sh (Kafka 3.x's
// TransactionsCommand): it lists and describes transactions, describes the
// producers of a partition, aborts a hanging transaction and finds hanging
// transactions, over the Kafka protocol (ListTransactions,
// DescribeTransactions, DescribeProducers, WriteTxnMarkers; KIP-664).
//
// Tables are printed as Kafka's ToolsUtils.prettyPrintTable prints them:
// every cell padded with spaces to its column's widest cell (header
// included) and followed by a tab, one row per line. Failures go to the
// error output as "<what failed>: <error message>. Enable debug logging for
// additional detail." with exit status 1.
package transactions
