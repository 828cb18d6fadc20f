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

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// TestSentinelCodeSurvivesWrapping: a sentinel keeps its code wrapped with
// context, as handlers see it, and behind an *Error of another code the
// outer code wins.
func TestSentinelCodeSurvivesWrapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want *kerr.Error
	}{
		{"bare", storage.ErrOffsetOutOfRange, kerr.OffsetOutOfRange},
		{"wrapped", fmt.Errorf("replica: appending to t-0: %w", storage.ErrOffsetOutOfRange), kerr.OffsetOutOfRange},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", meta.ErrConnectionLoss)), kerr.RequestTimedOut},
		{"a sentinel before the context error it carries", fmt.Errorf("%w: %w", storage.ErrClosed, context.Canceled), kerr.NotLeaderForPartition},
		{"a coded message", kafkaerr.New(kerr.NotController, "not the controller"), kerr.NotController},
		{"a Kafka code wrapping a sentinel", fmt.Errorf("%w: %w", kerr.NotEnoughReplicas, storage.ErrClosed), kerr.NotEnoughReplicas},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kafkaerr.Code(tc.err); got != tc.want {
				t.Errorf("Code(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
	// A sentinel is not its code for errors.Is: code that asks whether an
	// error IS a Kafka code must not match a package's sentinel.
	if errors.Is(storage.ErrOffsetOutOfRange, kerr.OffsetOutOfRange) {
		t.Error("errors.Is(sentinel, its kerr code) = true, want false")
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

// TestEverySentinelDeclaresItsCode finds the exported sentinel errors
// declared under broker/ (package-level Err* variables) and checks that each
// is made by kafkaerr.Sentinel or kafkaerr.New, so its Kafka code is written
// where it is declared and a new sentinel cannot fall through to
// UNKNOWN_SERVER_ERROR unnoticed.
func TestEverySentinelDeclaresItsCode(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var missing []string
	found := 0
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
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Err") || !n.IsExported() {
						continue
					}
					found++
					if i >= len(vs.Values) || !isCodedConstructor(vs.Values[i]) {
						missing = append(missing, f.Name.Name+"."+n.Name+" ("+path+")")
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 50 {
		t.Fatalf("found only %d sentinels under broker/: is the walk looking in the right place?", found)
	}
	if len(missing) > 0 {
		t.Fatalf("sentinel errors not declared with kafkaerr.Sentinel or kafkaerr.New:\n%s", strings.Join(missing, "\n"))
	}
}

// isCodedConstructor reports whether e is a call kafkaerr.Sentinel(...) or
// kafkaerr.New(...).
func isCodedConstructor(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "kafkaerr" && (sel.Sel.Name == "Sentinel" || sel.Sel.Name == "New")
}
