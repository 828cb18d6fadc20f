package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/javaerr"
	"kafgo/internal/topicpart"
)

// Run performs the election o describes against the cluster behind cl,
// printing Kafka's lines on out and its closing failure on errOut. A
// failure is returned as a *cliutil.CommandError (exit status 1) once
// printed.
func Run(ctx context.Context, cl *kgo.Client, o Options, out, errOut io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var parts []topicpart.TP // nil: every partition
	switch {
	case o.PathToJSONFile != "":
		data, err := os.ReadFile(o.PathToJSONFile)
		if err != nil {
			return fmt.Errorf("leader-election: %w", err)
		}
		if parts, err = ParseJSON(data); err != nil {
			return err
		}
	case o.TopicSet:
		parts = []topicpart.TP{{Topic: o.Topic, Partition: o.Partition}}
	}
	results, err := elect(ctx, cl, o.ElectionType, parts)
	if err != nil {
		var msg string
		switch {
		case errors.Is(err, kerr.ClusterAuthorizationFailed):
			msg = "Not authorized to perform leader election"
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, kerr.RequestTimedOut):
			msg = "Timeout waiting for election results"
		default:
			return err
		}
		fmt.Fprintln(out, msg)
		fmt.Fprintln(errOut, msg)
		return &cliutil.CommandError{Err: errors.New(msg)}
	}
	return report(o.ElectionType, results, out, errOut)
}

// result is one partition's answer: its error code and message.
type result struct {
	tp   topicpart.TP
	code int16
	msg  *string
}

func elect(ctx context.Context, cl *kgo.Client, typ ElectionType, parts []topicpart.TP) ([]result, error) {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = int8(typ)
	req.TimeoutMillis = 30000 // the tool's default.api.timeout.ms
	if parts != nil {
		req.Topics = []kmsg.ElectLeadersRequestTopic{}
		index := map[string]int{}
		for _, p := range parts {
			i, ok := index[p.Topic]
			if !ok {
				t := kmsg.NewElectLeadersRequestTopic()
				t.Topic = p.Topic
				req.Topics = append(req.Topics, t)
				i = len(req.Topics) - 1
				index[p.Topic] = i
			}
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, p.Partition)
		}
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("leader-election: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("leader-election: %w", err)
	}
	var out []result
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, result{tp: topicpart.TP{Topic: t.Topic, Partition: p.Partition}, code: p.ErrorCode, msg: p.ErrorMessage})
		}
	}
	return out, nil
}

// report prints Kafka's three kinds of line: elected, already elected
// (ELECTION_NOT_NEEDED), failed.
func report(typ ElectionType, results []result, out, errOut io.Writer) error {
	var done, noop []topicpart.TP
	var failed []result
	for _, r := range results {
		switch r.code {
		case 0:
			done = append(done, r.tp)
		case kerr.ElectionNotNeeded.Code:
			noop = append(noop, r.tp)
		default:
			failed = append(failed, r)
		}
	}
	topicpart.Sort(done)
	topicpart.Sort(noop)
	if len(done) > 0 {
		fmt.Fprintf(out, "Successfully completed leader election (%s) for partitions %s\n", typ, strings.Join(topicpart.Strings(done), ", "))
	}
	if len(noop) > 0 {
		fmt.Fprintf(out, "Valid replica already elected for partitions %s\n", strings.Join(topicpart.Strings(noop), ", "))
	}
	if len(failed) == 0 {
		return nil
	}
	for _, r := range sortResults(failed) {
		fmt.Fprintf(out, "Error completing leader election (%s) for partition: %s: %s\n", typ, r.tp, javaerr.String(r.code, r.msg))
	}
	msg := fmt.Sprintf("%d replica(s) could not be elected", len(failed))
	fmt.Fprintln(errOut, msg)
	return &cliutil.CommandError{Err: errors.New(msg)}
}

func sortResults(rs []result) []result {
	tps := make([]topicpart.TP, len(rs))
	by := map[topicpart.TP]result{}
	for i, r := range rs {
		tps[i] = r.tp
		by[r.tp] = r
	}
	topicpart.Sort(tps)
	out := make([]result, len(tps))
	for i, tp := range tps {
		out[i] = by[tp]
	}
	return out
}
