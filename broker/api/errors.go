package api

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// errCode maps an error to its Kafka code (0 for nil) with kafkaerr's
// table, the one every handler uses.
func errCode(err error) int16 {
	if err == nil {
		return 0
	}
	return kafkaerr.Code(err).Code
}

// refuse is a Kafka error code with Kafka's message for it.
func refuse(code *kerr.Error, format string, args ...any) error {
	return kafkaerr.New(code, format, args...)
}
