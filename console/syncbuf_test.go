package console

import "kafgo/internal/testing/testlog"

// syncBuffer is a bytes.Buffer safe for one writer goroutine and a polling
// reader.
type syncBuffer = testlog.Buffer
