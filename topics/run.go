package topics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
)

// requestTimeoutMillis is the broker-side timeout sent with CreateTopics,
// CreatePartitions and DeleteTopics: Kafka's admin default of 30 s.
const requestTimeoutMillis = 30000

var errInvalidConfig = errors.New(`Invalid topic config: all configs to be added must be in the format "key=val".`)

// Run performs o against the cluster behind cl and writes the tool's output
// to out. Command failures are printed as Kafka prints them and returned as
// a *cliutil.CommandError.
func Run(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	adm := kadm.NewClient(cl)
	var err error
	switch o.Action {
	case ActionCreate:
		err = create(ctx, cl, o, out)
	case ActionList:
		err = list(ctx, adm, o, out)
	case ActionDescribe:
		err = describe(ctx, adm, o, out)
	case ActionAlter:
		err = alter(ctx, cl, adm, o)
	case ActionDelete:
		err = deleteTopics(ctx, cl, adm, o)
	}
	if err != nil {
		fmt.Fprintf(out, "Error while executing topic command : %s\n", err)
		return &cliutil.CommandError{Err: err}
	}
	return nil
}

// topicFilter compiles --topic the way Kafka's IncludeList does: commas
// become alternation, spaces and surrounding quotes are dropped, and the
// pattern must match the whole name.
func topicFilter(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	e := strings.ReplaceAll(strings.TrimSpace(expr), ",", "|")
	e = strings.ReplaceAll(e, " ", "")
	e = strings.TrimLeft(e, `"'`)
	e = strings.TrimRight(e, `"'`)
	re, err := regexp.Compile("^(?:" + e + ")$")
	if err != nil {
		return nil, fmt.Errorf("invalid topic regular expression %q: %w", expr, err)
	}
	return re, nil
}

// matchingTopics returns the cluster metadata and the sorted names of the
// topics --topic selects, honouring --exclude-internal.
func matchingTopics(ctx context.Context, adm *kadm.Client, o Options) (kadm.Metadata, []string, error) {
	re, err := topicFilter(o.Topic)
	if err != nil {
		return kadm.Metadata{}, nil, err
	}
	md, err := adm.Metadata(ctx)
	if err != nil {
		return kadm.Metadata{}, nil, fmt.Errorf("fetching metadata: %w", err)
	}
	if o.ExcludeInternal {
		md.Topics.FilterInternal()
	}
	var names []string
	for _, name := range md.Topics.Names() {
		if re == nil || re.MatchString(name) {
			names = append(names, name)
		}
	}
	return md, names, nil
}

// ensureExists is TopicCommand's check for actions that name a topic.
func ensureExists(o Options, names []string) error {
	if len(names) == 0 && o.Topic != "" && !o.IfExists {
		return fmt.Errorf("Topic '%s' does not exist as expected", o.Topic)
	}
	return nil
}

// brokerErr carries the text Kafka would print while still unwrapping to
// the kerr code, so callers can test errors.Is(err, kerr.X).
type brokerErr struct {
	msg  string
	code error
}

func (e *brokerErr) Error() string { return e.msg }
func (e *brokerErr) Unwrap() error { return e.code }

// brokerError renders a per-topic error code the way the Java admin client
// surfaces it: the broker's message when it sent one, else the code's text.
// TOPIC_ALREADY_EXISTS gets Kafka's own sentence whatever the broker said,
// since scripts match on it.
func brokerError(topic string, code int16, msg *string) error {
	e := kerr.ErrorForCode(code)
	if e == nil {
		return nil
	}
	switch {
	case errors.Is(e, kerr.TopicAlreadyExists):
		return &brokerErr{fmt.Sprintf("Topic '%s' already exists.", topic), e}
	case msg != nil && *msg != "":
		return &brokerErr{*msg, e}
	}
	var ke *kerr.Error
	if errors.As(e, &ke) {
		return &brokerErr{ke.Description, e}
	}
	return e
}
