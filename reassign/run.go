package reassign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
)

// terseError is Kafka's TerseException: printed as its bare message, where
// other failures get an "Error: " prefix.
type terseError struct{ msg string }

func (e *terseError) Error() string { return e.msg }

func terse(msg string) error { return &terseError{msg: msg} }

// Run performs o against the cluster behind cl, writing the tool's output to
// out. A failure is printed on out as Kafka prints it and returned as a
// *cliutil.CommandError, for exit status 1.
func Run(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	err := run(ctx, newCluster(cl), o, out)
	if err == nil {
		return nil
	}
	var t *terseError
	if errors.As(err, &t) {
		fmt.Fprintln(out, t.msg)
	} else {
		fmt.Fprintf(out, "Error: %s\n", err)
	}
	return &cliutil.CommandError{Err: err}
}

func run(ctx context.Context, c *cluster, o Options, out io.Writer) error {
	switch o.Action {
	case ActionList:
		return list(ctx, c, out)
	case ActionGenerate:
		data, err := readFile(o.TopicsToMoveJSONFile)
		if err != nil {
			return err
		}
		return generate(ctx, c, o, data, out)
	}
	data, err := readFile(o.ReassignmentJSONFile)
	if err != nil {
		return err
	}
	switch o.Action {
	case ActionExecute:
		return execute(ctx, c, o, data, out)
	case ActionVerify:
		return verify(ctx, c, o, data, out)
	default:
		return cancel(ctx, c, o, data, out)
	}
}

func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reassign: reading %s: %w", path, err)
	}
	return data, nil
}
