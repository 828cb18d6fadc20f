package transactions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
)

// failure prints Kafka's printErrorAndExit line for what failed because
// of err.
func failure(errOut io.Writer, what string, err error) error {
	msg := what
	if err != nil {
		msg += ": " + javaMessage(err) + "." + " Enable debug logging for additional detail."
	}
	fmt.Fprintln(errOut, msg)
	return &cliutil.CommandError{Err: errors.New(msg)}
}

// javaMessage is what Java's exception message would be: a Kafka error's
// description (the first one of a sharded request), else the error text.
func javaMessage(err error) string {
	var se *kadm.ShardErrors
	if errors.As(err, &se) && len(se.Errs) > 0 {
		err = se.Errs[0].Err
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Description
	}
	return err.Error()
}

// Run performs o against the cluster behind cl: tables go to out, failures
// to errOut.
func Run(ctx context.Context, cl *kgo.Client, o Options, out, errOut io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	adm := kadm.NewClient(cl)
	switch o.Command {
	case CommandList:
		return list(ctx, adm, out, errOut)
	case CommandDescribe:
		return describe(ctx, adm, o, out, errOut)
	case CommandDescribeProducers:
		return describeProducersCmd(ctx, cl, o, out, errOut)
	case CommandAbort:
		return abort(ctx, cl, adm, o, errOut)
	case CommandFindHanging:
		return findHanging(ctx, cl, adm, o, out, errOut)
	}
	return nil
}

// printTable is Kafka's ToolsUtils.prettyPrintTable: each cell padded to
// its column's width (in UTF-16 units, Java's String.length) and followed
// by a tab.
func printTable(out io.Writer, headers []string, rows [][]string) {
	width := make([]int, len(headers))
	for i, h := range headers {
		width[i] = javaLen(h)
	}
	for _, r := range rows {
		for i := range headers {
			width[i] = max(width[i], javaLen(r[i]))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", width[i]-javaLen(c)))
			b.WriteByte('\t')
		}
		b.WriteByte('\n')
		io.WriteString(out, b.String())
	}
	line(headers)
	for _, r := range rows {
		line(r)
	}
}

func javaLen(s string) int { return len(utf16.Encode([]rune(s))) }
