package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/config"
	"kafgo/broker/topicadmin"
	"kafgo/internal/placement"
)

// fakeAdmin is a TopicAdmin that knows a fixed set of topics.
type fakeAdmin struct{ topics map[string]bool }

func (a fakeAdmin) TopicExists(_ context.Context, name string) (bool, error) {
	return a.topics[name], nil
}

var errNotFaked = errors.New("not faked")

func (fakeAdmin) CreateTopic(context.Context, topicadmin.TopicSpec, bool) (map[int32][]int32, error) {
	return nil, errNotFaked
}
func (fakeAdmin) AddPartitions(context.Context, string, int32, [][]int32, bool) error {
	return errNotFaked
}
func (fakeAdmin) DeleteTopic(context.Context, string) error { return errNotFaked }
func (fakeAdmin) LiveBrokers(context.Context) ([]placement.BrokerRack, error) {
	return nil, errNotFaked
}

// fakeConfigs is a ConfigStore in memory. race, if set, runs once inside the
// next Update between its read and its write, as another broker's write
// landing there; the update then starts over from what is stored, as
// dynconfig's version check makes it.
type fakeConfigs struct {
	stored  map[string]map[string]string // "<type>/<name>"
	writes  int
	attempt int
	race    func(stored map[string]map[string]string)
}

func (f *fakeConfigs) Read(_ context.Context, typ, name string) (map[string]string, error) {
	return maps.Clone(f.stored[typ+"/"+name]), nil
}

func (f *fakeConfigs) Update(ctx context.Context, typ, name string, fn func(map[string]string) error) error {
	for {
		f.attempt++
		cfg, _ := f.Read(ctx, typ, name)
		if cfg == nil {
			cfg = map[string]string{}
		}
		if err := fn(cfg); err != nil {
			return err
		}
		if race := f.race; race != nil {
			f.race = nil
			race(f.stored)
			continue // the version moved: read again
		}
		f.stored[typ+"/"+name] = cfg
		f.writes++
		return nil
	}
}

// newConfigServer is a Server whose config handlers run on fakes: no
// metadata store, no broker.
func newConfigServer(t *testing.T, configs *fakeConfigs) *Server {
	t.Helper()
	cfg, err := config.Load("", map[string]string{"broker.id": "1"})
	if err != nil {
		t.Fatal(err)
	}
	return New(&Deps{BrokerID: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RequestTimeout: 10 * time.Second,
		Admin: fakeAdmin{topics: map[string]bool{"t": true}}, Configs: configs, Config: func() *config.Broker { return cfg }})
}

func incrementalAlter(s *Server, topic string, validateOnly bool, ops ...kmsg.IncrementalAlterConfigsRequestResourceConfig) *kmsg.IncrementalAlterConfigsResponseResource {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.Configs = kmsg.ConfigResourceTypeTopic, topic, ops
	req.Resources = append(req.Resources, r)
	resp := s.handleIncrementalAlterConfigs(&Call{Req: req})().Resp.(*kmsg.IncrementalAlterConfigsResponse)
	return &resp.Resources[0]
}

func configOp(op kmsg.IncrementalAlterConfigOp, name string, value *string) kmsg.IncrementalAlterConfigsRequestResourceConfig {
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Op, c.Name, c.Value = op, name, value
	return c
}

// TestIncrementalAlterConfigsWithFakes runs the handler on a fake topic
// admin and config store: SET, DELETE and APPEND apply to the stored
// overrides; an invalid value or an unknown topic is refused with nothing
// written; validate-only writes nothing; and an update that loses a race
// applies its change on top of the other write, which stays.
func TestIncrementalAlterConfigsWithFakes(t *testing.T) {
	configs := &fakeConfigs{stored: map[string]map[string]string{"topics/t": {"retention.ms": "1000", "segment.ms": "5000"}}}
	s := newConfigServer(t, configs)
	set, del, appendOp := kmsg.IncrementalAlterConfigOpSet, kmsg.IncrementalAlterConfigOpDelete, kmsg.IncrementalAlterConfigOpAppend

	r := incrementalAlter(s, "t", false, configOp(set, "retention.ms", kmsg.StringPtr("2000")), configOp(del, "segment.ms", nil),
		configOp(appendOp, "cleanup.policy", kmsg.StringPtr("compact")))
	if r.ErrorCode != 0 {
		t.Fatalf("alter: %v %v", kerr.ErrorForCode(r.ErrorCode), strPtr(r.ErrorMessage))
	}
	want := map[string]string{"retention.ms": "2000", "cleanup.policy": "delete,compact"}
	if got := configs.stored["topics/t"]; !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}

	writes := configs.writes
	if r := incrementalAlter(s, "t", false, configOp(set, "retention.ms", kmsg.StringPtr("soon"))); r.ErrorCode != kerr.InvalidConfig.Code {
		t.Fatalf("an invalid value: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if r := incrementalAlter(s, "nope", false, configOp(set, "retention.ms", kmsg.StringPtr("1"))); r.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("an unknown topic: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if r := incrementalAlter(s, "t", true, configOp(set, "retention.ms", kmsg.StringPtr("3000"))); r.ErrorCode != 0 {
		t.Fatalf("validate only: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if configs.writes != writes || configs.stored["topics/t"]["retention.ms"] != "2000" {
		t.Fatalf("refused or validate-only alters wrote: %d writes, stored %v", configs.writes-writes, configs.stored["topics/t"])
	}

	// Another broker sets segment.bytes between this update's read and its
	// write: both changes stay.
	configs.attempt = 0
	configs.race = func(stored map[string]map[string]string) {
		stored["topics/t"] = maps.Clone(stored["topics/t"])
		stored["topics/t"]["segment.bytes"] = "1048576"
	}
	if r := incrementalAlter(s, "t", false, configOp(set, "retention.ms", kmsg.StringPtr("4000"))); r.ErrorCode != 0 {
		t.Fatalf("alter in a race: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if got := configs.stored["topics/t"]; got["retention.ms"] != "4000" || got["segment.bytes"] != "1048576" {
		t.Fatalf("after a lost race stored %v: a change was lost", got)
	}
	if configs.attempt != 2 {
		t.Fatalf("%d attempts, want 2 (the lost race is applied again)", configs.attempt)
	}
}

func strPtr(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
