package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Run shows the live view on a terminal until the user quits or ctx ends.
func Run(ctx context.Context, src Source, o Options, in io.Reader, out io.Writer) error {
	m := New(src, o)
	m.ctx = ctx
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		// An interrupt (the context ending) is how a signal stops the
		// program; that is a normal exit, not a failure.
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// How often, and how far apart, RenderOnce asks again for a topic the
// first answer lacked.
const (
	missingTopicRetries = 4
	missingTopicBackoff = 250 * time.Millisecond
)

// RenderOnce takes one snapshot and renders the frame of o.View at
// width×height, as the live view would show it without what only a live
// view needs (key help, refresh schedule): what --once prints.
func RenderOnce(ctx context.Context, src Source, o Options, width, height int) (string, error) {
	o.Once = true
	m := New(src, o)
	m.ctx = ctx
	msg := m.fetch()().(snapshotMsg)
	if msg.err != nil {
		return "", msg.err
	}
	// A broker that has just started answers Metadata from an empty cache
	// until the controller's first update reaches it, so one answer
	// without the topic is not proof: ask again (another broker may
	// answer) a few times before saying it does not exist.
	for try := 0; try < missingTopicRetries && o.Topic != "" && msg.err == nil; try++ {
		if _, ok := msg.snap.Topic(o.Topic); ok {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(missingTopicBackoff):
		}
		msg = m.fetch()().(snapshotMsg)
	}
	if msg.err != nil {
		return "", msg.err
	}
	// A printed frame cannot offer another topic or group instead.
	if _, ok := msg.snap.Topic(o.Topic); o.Topic != "" && !ok {
		return "", fmt.Errorf("tui: topic %s does not exist", o.Topic)
	}
	if _, ok := msg.snap.Group(o.Group); o.Group != "" && !ok {
		return "", fmt.Errorf("tui: group %s does not exist", o.Group)
	}
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: width, Height: height})
	tm, _ = tm.Update(msg)
	// One probe round, so a frame shows the brokers that do not answer.
	if pr, ok := src.(Prober); ok {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout+time.Second)
		res := pr.Probe(pctx, msg.snap.Brokers)
		cancel()
		tm, _ = tm.Update(probeMsg{at: msg.snap.Taken, results: res})
	}
	return tm.View(), nil
}
