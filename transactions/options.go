package transactions

import (
	"errors"
	"fmt"
	"time"
)

// The commands, as kafka-transactions.sh names them.
const (
	CommandList              = "list"
	CommandDescribe          = "describe"
	CommandDescribeProducers = "describe-producers"
	CommandAbort             = "abort"
	CommandFindHanging       = "find-hanging"
)

// Options are one command and its arguments; nil pointers are arguments
// not given.
type Options struct {
	Command         string
	TransactionalID string // describe
	Topic           string // describe-producers, abort, find-hanging
	Partition       *int32
	BrokerID        *int32 // describe-producers, find-hanging
	// abort: either StartOffset (3.0+ brokers), or ProducerID,
	// ProducerEpoch and CoordinatorEpoch (older brokers).
	StartOffset      *int64
	ProducerID       *int64
	ProducerEpoch    *int16
	CoordinatorEpoch *int32
	// MaxTransactionTimeout is find-hanging's --max-transaction-timeout in
	// minutes (default 15).
	MaxTransactionTimeout int
	// Now is the clock for durations; nil is time.Now.
	Now func() time.Time
}

// Validate checks what the argument parser checks: the command exists and
// its required arguments are there.
func (o *Options) Validate() error {
	required := func(ok bool, flag string) error {
		if !ok {
			return fmt.Errorf("argument %s is required", flag)
		}
		return nil
	}
	switch o.Command {
	case CommandList:
		return nil
	case CommandDescribe:
		return required(o.TransactionalID != "", "--transactional-id")
	case CommandDescribeProducers, CommandAbort:
		return errors.Join(required(o.Topic != "", "--topic"), required(o.Partition != nil, "--partition"))
	case CommandFindHanging:
		if o.MaxTransactionTimeout < 0 {
			return fmt.Errorf("argument --max-transaction-timeout: %d must not be negative", o.MaxTransactionTimeout)
		}
		return nil
	case "":
		return errors.New("a command is required: list, describe, describe-producers, abort, find-hanging")
	}
	return fmt.Errorf("unknown command %q: list, describe, describe-producers, abort, find-hanging", o.Command)
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
