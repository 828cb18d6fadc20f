package dynconfig

import (
	"context"
	"log/slog"
	"sync"

	"kafgo/broker/meta"
)

// Changes follows /config/changes (Kafka's DynamicConfigManager): each
// notification goes to the handlers registered for its entity type, in
// registration order, so each subsystem (topic configs, broker configs,
// client quotas, SCRAM credentials) registers for the types it keeps and
// none needs to know the others. A notification of a type nobody
// registered, or one that does not parse, is skipped.
type Changes struct {
	listener *meta.ChangeListener

	mu       sync.RWMutex
	handlers map[string][]func(name string)
}

// NewChanges follows the notifications in store; log, if set, hears of
// failures to watch them.
func NewChanges(store meta.Store, log *slog.Logger) *Changes {
	c := &Changes{handlers: map[string][]func(string){}}
	c.listener = meta.NewChangeListener(store, ChangesPath, ChangePrefix, c.dispatch)
	c.listener.Log = log
	return c
}

// Register calls handle with the (sanitized) entity name of every change
// notification of entityType. Handlers run one at a time, on the
// follower's goroutine; register them before Run.
func (c *Changes) Register(entityType string, handle func(name string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[entityType] = append(c.handlers[entityType], handle)
}

// SkipExisting marks the notifications present now as handled: the
// subsystems read the current state themselves at start-up.
func (c *Changes) SkipExisting(ctx context.Context) error { return c.listener.SkipExisting(ctx) }

// Run applies notifications until ctx ends.
func (c *Changes) Run(ctx context.Context) { c.listener.Run(ctx) }

// Apply handles the named notifications now, as Run does when its watch
// fires (tests drive it so).
func (c *Changes) Apply(ctx context.Context, names []string) { c.listener.Apply(ctx, names) }

func (c *Changes) dispatch(_ context.Context, _ string, data []byte) {
	entityPath, err := ParseChange(data)
	if err != nil {
		return
	}
	typ, name := SplitEntityPath(entityPath)
	c.mu.RLock()
	hs := c.handlers[typ]
	c.mu.RUnlock()
	for _, h := range hs {
		h(name)
	}
}
