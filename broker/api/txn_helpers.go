package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
)

// registerTxnAPIs serves the transaction coordinator's APIs (KIP-98,
// KIP-447, KIP-664) at Kafka 2.8's versions, before KIP-890 changed
// fencedCode is a transaction error's code at a request version: clients
// older than KIP-588 (the API's fencedFrom version) do not know
// PRODUCER_FENCED and get INVALID_PRODUCER_EPOCH, as Kafka answers them.
func fencedCode(err *kerr.Error, version, fencedFrom int16) int16 {
	if err == kerr.ProducerFenced && version < fencedFrom {
		return kerr.InvalidProducerEpoch.Code
	}
	return code(err)
}
