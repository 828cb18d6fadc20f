package testwait

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestUntilReturnsOnceTrue(t *testing.T) {
	n := 0
	Until(t, time.Second, "three polls", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("polled %d times, want 3", n)
	}
}

// recorder captures Fatalf instead of ending the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

func TestForReportsTheLastReason(t *testing.T) {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != r {
				t.Fatalf("no failure reported (recovered %v)", p)
			}
		}()
		i := 0
		For(r, 20*time.Millisecond, "the impossible", func() (bool, string) { i++; return false, fmt.Sprintf("try %d", i) })
	}()
	if !strings.Contains(r.msg, "the impossible") || !strings.Contains(r.msg, "try ") {
		t.Fatalf("failure %q lacks what or why", r.msg)
	}
}
