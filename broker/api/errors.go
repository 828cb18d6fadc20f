package api

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// errCode is an error's Kafka code (0 for nil): the code its sentinel
// carries, or kafkaerr.Code's mapping of context, network and file errors.
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
