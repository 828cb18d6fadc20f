package cliutil

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fatalCodes are the Kafka errors no retry cures: the credentials, the
// mechanism or the principal's rights are wrong. Kafka's clients throw
// them from poll() and send(), ending the tools.
var fatalCodes = []*kerr.Error{
	kerr.SaslAuthenticationFailed, kerr.UnsupportedSaslMechanism, kerr.IllegalSaslState,
	kerr.TopicAuthorizationFailed, kerr.GroupAuthorizationFailed, kerr.ClusterAuthorizationFailed,
	kerr.TransactionalIDAuthorizationFailed,
}

// IsFatal reports whether err is one a Kafka client cannot cure by
// retrying: authentication failed, TLS is missing, unwanted or fails its
// handshake, or the principal is not authorized. kgo keeps retrying some
// of them for ever (a consumer's connections after a failed SASL login,
// say), so a tool checks for them itself (CheckTopics, WatchFatal) rather
// than wait in silence.
func IsFatal(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range fatalCodes {
		if errors.Is(err, e) {
			return true
		}
	}
	var (
		eof       *kgo.ErrFirstReadEOF // the broker hung up at once: TLS or SASL missing
		record    tls.RecordHeaderError
		alert     tls.AlertError
		verify    *tls.CertificateVerificationError
		authority x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		handshake *TLSHandshakeError
	)
	if errors.As(err, &handshake) {
		var ne net.Error
		return !errors.As(handshake.Err, &ne) || !ne.Timeout()
	}
	return errors.As(err, &eof) || errors.As(err, &record) || errors.As(err, &alert) ||
		errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid)
}

// errAuthorization is a topic the metadata answer refused to describe.
type errAuthorization struct {
	topic string
	err   error
}

func (e *errAuthorization) Error() string { return fmt.Sprintf("topic %s: %v", e.topic, e.err) }
func (e *errAuthorization) Unwrap() error { return e.err }

// connWatch is a kgo hook that keeps the last fatal error met while
// connecting to a broker (dial, TLS handshake, ApiVersions, SASL), which
// kgo otherwise only logs and retries. CommonOpts installs one in every
// tool's client; ConnectError reads it.
type connWatch struct {
	mu  sync.Mutex
	err error
}

func (w *connWatch) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if IsFatal(err) {
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
	}
}

func (w *connWatch) fatal() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// ConnectError returns the last fatal error cl met connecting to a broker
// (a failed login, TLS missing or failing), nil if none; cl must have been
// built from CommonOpts.
func ConnectError(cl *kgo.Client) error {
	hooks, _ := cl.OptValue(kgo.WithHooks).([]kgo.Hook)
	for _, h := range hooks {
		if w, ok := h.(*connWatch); ok {
			return w.fatal()
		}
	}
	return nil
}

// CheckTopics asks the cluster about topics (none: only about the cluster
// itself), without letting it create them, the way a consumer does before
// it fetches. It returns the first fatal error (IsFatal): a failed login or
// TLS handshake, or a topic the principal may not read. It writes the Java
// consumer's metadata warning on w for topics (or, when partition >= 0,
// the partition) that do not exist, so that a consumer of a mistyped topic
// does not wait in silence. A cluster that does not answer before ctx
// ends is no error: the tool waits for it, as Kafka's do.
func CheckTopics(ctx context.Context, cl *kgo.Client, w io.Writer, topics []string, partition int32) error {
	resp, err := metadataFor(ctx, cl, topics)
	if err != nil {
		if IsFatal(err) {
			return err
		}
		// kgo may have retried a fatal connection error until ctx ended.
		return ConnectError(cl)
	}
	var problems []TopicProblem
	for _, rt := range resp.Topics {
		name := ""
		if rt.Topic != nil {
			name = *rt.Topic
		}
		if rt.ErrorCode == kerr.TopicAuthorizationFailed.Code {
			return &errAuthorization{topic: name, err: kerr.TopicAuthorizationFailed}
		}
		if p, ok := topicProblem(rt, partition); ok {
			problems = append(problems, p)
		}
	}
	warnProblems(w, problems)
	return nil
}

// WatchFatal watches cl while a consumer runs for a fatal error met
// connecting (ConnectError), which kgo retries for ever where Java's
// consumer throws: a cluster down at the start that refuses the client
// once up, credentials withdrawn later. (A topic or group refused later
// reaches the consumer's poll as an error of its own.) The context it
// returns ends with ctx or at the first such error; stop (which may be
// called more than once) ends the watch and returns that error (nil if
// none).
func WatchFatal(ctx context.Context, cl *kgo.Client) (context.Context, func() error) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	finished := make(chan struct{})
	var found error
	go func() {
		defer close(finished)
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case <-t.C:
			}
			if err := ConnectError(cl); err != nil {
				found = err
				cancel(err)
				return
			}
		}
	}()
	var once sync.Once
	return wctx, func() error {
		once.Do(func() {
			close(done)
			<-finished
			cancel(nil)
		})
		return found
	}
}

// watchInterval is how often WatchFatal looks; looking costs nothing.
const watchInterval = 500 * time.Millisecond

// metadataFor is a Metadata request for topics that creates none.
func metadataFor(ctx context.Context, cl *kgo.Client, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	req.Topics = []kmsg.MetadataRequestTopic{} // none: only the brokers
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}
