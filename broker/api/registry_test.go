package api

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestEachHandlerFileRegistersItsKey: every API key is registered by the
// file named for it (NN_<name>.go registers key NN, where its handler is),
// every such file registers, and ApiVersions advertises exactly the
// registrations.
func TestEachHandlerFileRegistersItsKey(t *testing.T) {
	files, err := filepath.Glob("[0-9][0-9]_*.go")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for key, r := range registrations {
		fn := runtime.FuncForPC(reflect.ValueOf(r.fn).Pointer())
		file, _ := fn.FileLine(fn.Entry())
		base := filepath.Base(file)
		if want := fmt.Sprintf("%02d_", key); !strings.HasPrefix(base, want) {
			t.Errorf("key %d's handler %s is in %s, want a file named %s*.go", key, fn.Name(), base, want)
		}
		registered[base] = true
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !registered[f] {
			t.Errorf("%s registers no handler", f)
		}
	}
	s := New(&Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if len(s.versions) != len(registrations) {
		t.Fatalf("ApiVersions lists %d keys, %d registered", len(s.versions), len(registrations))
	}
	for _, v := range s.versions {
		r := registrations[v.ApiKey]
		if v.MinVersion != r.minV || v.MaxVersion != r.maxV {
			t.Errorf("key %d advertised v%d-v%d, registered v%d-v%d", v.ApiKey, v.MinVersion, v.MaxVersion, r.minV, r.maxV)
		}
	}
}
