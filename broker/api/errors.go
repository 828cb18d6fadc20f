package api

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/storage"
)

// kafkaError maps any error the broker's parts return onto Kafka's error
// table: kerr values pass through, storage's producer-state and range errors
// get their codes, anything else is a storage failure if it came from the log
// and an unknown server error otherwise.
func kafkaError(err error) *kerr.Error {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke
	}
	switch {
	case errors.Is(err, storage.ErrOffsetOutOfRange):
		return kerr.OffsetOutOfRange
	case errors.Is(err, storage.ErrOutOfOrderSequence):
		return kerr.OutOfOrderSequenceNumber
	case errors.Is(err, storage.ErrInvalidProducerEpoch):
		return kerr.InvalidProducerEpoch
	case errors.Is(err, storage.ErrUnknownProducerID):
		return kerr.UnknownProducerID
	case errors.Is(err, storage.ErrInvalidTxnState):
		return kerr.InvalidTxnState
	case errors.Is(err, storage.ErrCoordinatorFenced):
		return kerr.TransactionCoordinatorFenced
	}
	return kerr.KafkaStorageError
}

// refuse is a Kafka error code with Kafka's message for it.
func refuse(code *kerr.Error, format string, args ...any) error {
	return kafkaerr.New(code, format, args...)
}
