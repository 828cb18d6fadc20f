package cliutil

// CommandError is a failure of a tool's command proper (as opposed to a
// usage error) whose line the tool has already printed the way Kafka's own
// tool prints it; main exits 1 without printing it a second time.
type CommandError struct{ Err error }

func (e *CommandError) Error() string { return e.Err.Error() }
func (e *CommandError) Unwrap() error { return e.Err }

// AlreadyReported tells main not to print the error a second time.
func (e *CommandError) AlreadyReported() bool { return true }
