package kafkaerr_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/controller"
	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/record"
	"kafgo/broker/sasl"
	"kafgo/broker/storage"
	"kafgo/broker/storage/vfs"
	"kafgo/broker/txn/txnrec"
	"kafgo/broker/wire"
)

// sentinelCodes is every exported sentinel error of the broker's packages
// with the Kafka code a client must get for it. It is written out here, not
// taken from the table under test, and TestEverySentinelIsListed keeps it
// complete.
var sentinelCodes = []struct {
	name string // package.Name, as declared
	err  error
	want *kerr.Error
}{
	{"storage.ErrStorage", storage.ErrStorage, kerr.KafkaStorageError},
	{"vfs.ErrInjected", vfs.ErrInjected, kerr.KafkaStorageError},
	{"storage.ErrLogDirLocked", storage.ErrLogDirLocked, kerr.UnknownServerError},
	{"storage.ErrOffsetOutOfRange", storage.ErrOffsetOutOfRange, kerr.OffsetOutOfRange},
	{"storage.ErrInvalidBatch", storage.ErrInvalidBatch, kerr.CorruptMessage},
	{"storage.ErrBatchTooLarge", storage.ErrBatchTooLarge, kerr.RecordListTooLarge},
	{"storage.ErrInvalidProducerEpoch", storage.ErrInvalidProducerEpoch, kerr.InvalidProducerEpoch},
	{"storage.ErrOutOfOrderSequence", storage.ErrOutOfOrderSequence, kerr.OutOfOrderSequenceNumber},
	{"storage.ErrUnknownProducerID", storage.ErrUnknownProducerID, kerr.UnknownProducerID},
	{"storage.ErrInvalidTxnState", storage.ErrInvalidTxnState, kerr.InvalidTxnState},
	{"storage.ErrCoordinatorFenced", storage.ErrCoordinatorFenced, kerr.TransactionCoordinatorFenced},
	{"storage.ErrUnexpectedAppendOffset", storage.ErrUnexpectedAppendOffset, kerr.UnknownServerError},
	{"storage.ErrOffsetsOutOfOrder", storage.ErrOffsetsOutOfOrder, kerr.UnknownServerError},
	{"storage.ErrClosed", storage.ErrClosed, kerr.NotLeaderForPartition},
	{"storage.ErrCorruptFile", storage.ErrCorruptFile, kerr.KafkaStorageError},
	{"storage.ErrInconsistentBrokerID", storage.ErrInconsistentBrokerID, kerr.UnknownServerError},
	{"storage.ErrInconsistentClusterID", storage.ErrInconsistentClusterID, kerr.UnknownServerError},
	{"storage.ErrInconsistentTopicID", storage.ErrInconsistentTopicID, kerr.InconsistentTopicID},
	{"storage.ErrInvalidConfig", storage.ErrInvalidConfig, kerr.InvalidConfig},

	{"record.ErrCorrupt", record.ErrCorrupt, kerr.CorruptMessage},
	{"record.ErrInvalid", record.ErrInvalid, kerr.InvalidRecord},
	{"record.ErrTruncated", record.ErrTruncated, kerr.CorruptMessage},
	{"record.ErrTooLarge", record.ErrTooLarge, kerr.CorruptMessage},
	{"record.ErrOtherMagic", record.ErrOtherMagic, kerr.InvalidRecord},

	{"meta.ErrNoNode", meta.ErrNoNode, kerr.UnknownServerError},
	{"meta.ErrNodeExists", meta.ErrNodeExists, kerr.UnknownServerError},
	{"meta.ErrBadVersion", meta.ErrBadVersion, kerr.UnknownServerError},
	{"meta.ErrNotEmpty", meta.ErrNotEmpty, kerr.UnknownServerError},
	{"meta.ErrNoChildrenForEphemerals", meta.ErrNoChildrenForEphemerals, kerr.UnknownServerError},
	{"meta.ErrSessionExpired", meta.ErrSessionExpired, kerr.RequestTimedOut},
	{"meta.ErrConnectionLoss", meta.ErrConnectionLoss, kerr.RequestTimedOut},
	{"meta.ErrClosed", meta.ErrClosed, kerr.RequestTimedOut},
	{"meta.ErrInvalidPath", meta.ErrInvalidPath, kerr.UnknownServerError},
	{"meta.ErrRolledBack", meta.ErrRolledBack, kerr.UnknownServerError},
	{"meta.ErrCorrupt", meta.ErrCorrupt, kerr.UnknownServerError},
	{"znode.ErrProducerIDsExhausted", znode.ErrProducerIDsExhausted, kerr.UnknownServerError},

	{"config.ErrUnknownKey", config.ErrUnknownKey, kerr.InvalidConfig},
	{"config.ErrInvalidValue", config.ErrInvalidValue, kerr.InvalidConfig},
	{"config.ErrReadOnly", config.ErrReadOnly, kerr.InvalidConfig},
	{"config.ErrDuplicateKey", config.ErrDuplicateKey, kerr.InvalidRequest},
	{"config.ErrUnsupported", config.ErrUnsupported, kerr.InvalidConfig},

	{"wire.ErrFrameTooLarge", wire.ErrFrameTooLarge, kerr.UnknownServerError},
	{"wire.ErrFrameTooSmall", wire.ErrFrameTooSmall, kerr.UnknownServerError},
	{"wire.ErrTruncated", wire.ErrTruncated, kerr.UnknownServerError},
	{"wire.ErrMalformedHeader", wire.ErrMalformedHeader, kerr.UnknownServerError},
	{"wire.ErrClientClosed", wire.ErrClientClosed, kerr.NetworkException},
	{"wire.ErrServerClosed", wire.ErrServerClosed, kerr.NetworkException},

	{"offsetsrec.ErrMalformed", offsetsrec.ErrMalformed, kerr.UnknownServerError},
	{"offsetsrec.ErrUnknownVersion", offsetsrec.ErrUnknownVersion, kerr.UnknownServerError},
	{"txnrec.ErrMalformed", txnrec.ErrMalformed, kerr.UnknownServerError},
	{"acl.ErrInvalid", acl.ErrInvalid, kerr.InvalidRequest},
	{"sasl.ErrMalformed", sasl.ErrMalformed, kerr.SaslAuthenticationFailed},
	{"sasl.ErrSessionExpired", sasl.ErrSessionExpired, kerr.SaslAuthenticationFailed},
	{"sasl.ErrUnexpectedRequest", sasl.ErrUnexpectedRequest, kerr.IllegalSaslState},
	{"wire.ErrAuthentication", wire.ErrAuthentication, kerr.SaslAuthenticationFailed},
	{"txnrec.ErrUnknownVersion", txnrec.ErrUnknownVersion, kerr.UnknownServerError},

	{"controller.ErrNotController", controller.ErrNotController, kerr.NotController},
}

func TestCodeOfEverySentinel(t *testing.T) {
	for _, tc := range sentinelCodes {
		t.Run(tc.name, func(t *testing.T) {
			if got := kafkaerr.Code(tc.err); got != tc.want {
				t.Errorf("Code(%s) = %v, want %v", tc.name, got, tc.want)
			}
			// As handlers see them: wrapped with context.
			wrapped := fmt.Errorf("replica: appending to t-0: %w", tc.err)
			if got := kafkaerr.Code(wrapped); got != tc.want {
				t.Errorf("Code(wrapped %s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestCodeOfOtherErrors(t *testing.T) {
	diskFull := &fs.PathError{Op: "write", Path: "/data/t-0/00000000000000000000.log", Err: syscall.ENOSPC}
	for _, tc := range []struct {
		name string
		err  error
		want *kerr.Error
	}{
		{"nil", nil, nil},
		{"a Kafka code", fmt.Errorf("x: %w", kerr.NotEnoughReplicas), kerr.NotEnoughReplicas},
		{"a Kafka code with a message", kafkaerr.New(kerr.TopicAlreadyExists, "Topic 't' already exists."), kerr.TopicAlreadyExists},
		{"a corrupt batch", &record.Error{Kind: record.KindCorrupt, Err: record.ErrTruncated}, kerr.CorruptMessage},
		{"an invalid batch", &record.Error{Kind: record.KindInvalid}, kerr.InvalidRecord},
		{"a log refusing an invalid batch", fmt.Errorf("%w: %w", storage.ErrInvalidBatch, &record.Error{Kind: record.KindInvalid}), kerr.CorruptMessage},
		{"a request deadline", fmt.Errorf("meta: get /brokers/ids: %w", context.DeadlineExceeded), kerr.RequestTimedOut},
		{"an abandoned request", context.Canceled, kerr.RequestTimedOut},
		{"a full disk", fmt.Errorf("storage: appending: %w", diskFull), kerr.KafkaStorageError},
		{"a failed rename", &os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.EIO}, kerr.KafkaStorageError},
		{"a failed fsync", os.NewSyscallError("fsync", syscall.EIO), kerr.KafkaStorageError},
		{"a reset connection", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, kerr.NetworkException},
		{"anything else", errors.New("boom"), kerr.UnknownServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kafkaerr.Code(tc.err); got != tc.want {
				t.Fatalf("Code(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestEverySentinelIsListed finds the exported sentinel errors declared
// under broker/ (package-level Err* variables) and checks that
// sentinelCodes lists each, so a new sentinel cannot fall through to
// UNKNOWN_SERVER_ERROR unnoticed.
func TestEverySentinelIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, tc := range sentinelCodes {
		listed[tc.name] = true
	}
	found := map[string]bool{}
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var missing []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
						name := f.Name.Name + "." + n.Name
						found[name] = true
						if !listed[name] {
							missing = append(missing, name+" ("+path+")")
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("sentinel errors without an expected Kafka code here:\n%s", strings.Join(missing, "\n"))
	}
	for name := range listed {
		if !found[name] {
			t.Errorf("%s is listed but not declared under broker/ (renamed or removed?)", name)
		}
	}
}
