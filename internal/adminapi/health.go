package adminapi

import (
	"time"

	"kafgo/internal/consumerhealth"
)

// ConsumerHealthPath is GET /v1/consumer-health: the health of the consumer
// groups the answering broker coordinates (see internal/consumerhealth).
// Only a group's coordinator reports it, so the documents of all brokers
// together hold each group once.
const ConsumerHealthPath = "/v1/consumer-health"

// ConsumerHealth is GET /v1/consumer-health.
type ConsumerHealth struct {
	TimeMs int64         `json:"time_ms"`
	Groups []GroupHealth `json:"groups"`
}

// GroupHealth is one group: its status (its worst partition's), as name
// and as Burrow's number.
type GroupHealth struct {
	Group        string            `json:"group"`
	Status       string            `json:"status"`
	StatusCode   int               `json:"status_code"`
	TotalLag     int64             `json:"total_lag"`
	MaxTimeLagMs int64             `json:"max_time_lag_ms"`
	Partitions   []PartitionHealth `json:"partitions"`
}

// PartitionHealth is one partition of a group. Unknown figures are null.
type PartitionHealth struct {
	Topic       string  `json:"topic"`
	Partition   int32   `json:"partition"`
	Status      string  `json:"status"`
	StatusCode  int     `json:"status_code"`
	Committed   int64   `json:"committed_offset"`
	End         *int64  `json:"high_watermark"`
	Lag         *int64  `json:"lag"`
	TimeLagMs   *int64  `json:"time_lag_ms"`
	ConsumeRate float64 `json:"consume_rate"` // records/s over the window
	ProduceRate float64 `json:"produce_rate"` // records/s over the window
	// EtaMs is the estimated time to catch up; Catchup says what it means:
	// "caught_up", "catching_up" (the lag reaches 0 then at these rates),
	// "falling_behind" (what the backlog alone takes at the consume rate;
	// producers outpace the group) or "unknown" (EtaMs null).
	EtaMs    *int64  `json:"eta_ms"`
	Catchup  string  `json:"catchup"`
	Commits  int     `json:"commits"`
	Complete bool    `json:"window_complete"`
	Lags     []int64 `json:"recent_lags"`
}

var catchupNames = map[consumerhealth.Catchup]string{
	consumerhealth.CatchupUnknown: "unknown", consumerhealth.CaughtUp: "caught_up",
	consumerhealth.CatchingUp: "catching_up", consumerhealth.FallingBehind: "falling_behind",
}

// CatchupOf reads a Catchup name back.
func CatchupOf(name string) consumerhealth.Catchup {
	for c, n := range catchupNames {
		if n == name {
			return c
		}
	}
	return consumerhealth.CatchupUnknown
}

// FromHealth renders evaluations as the document.
func FromHealth(now time.Time, groups []consumerhealth.GroupHealth) ConsumerHealth {
	doc := ConsumerHealth{TimeMs: now.UnixMilli(), Groups: []GroupHealth{}}
	for _, g := range groups {
		gh := GroupHealth{Group: g.Group, Status: g.Status.String(), StatusCode: int(g.Status), TotalLag: g.TotalLag,
			MaxTimeLagMs: g.MaxTimeLag.Milliseconds(), Partitions: []PartitionHealth{}}
		for _, p := range g.Partitions {
			ph := PartitionHealth{Topic: p.Topic, Partition: p.Partition, Status: p.Status.String(), StatusCode: int(p.Status),
				Committed: p.Committed, ConsumeRate: p.ConsumeRate, ProduceRate: p.ProduceRate, Catchup: catchupNames[p.Catchup],
				Commits: p.Commits, Complete: p.Complete, Lags: p.Lags}
			if p.End >= 0 {
				end, lag := p.End, p.Lag
				ph.End, ph.Lag = &end, &lag
			}
			if p.TimeLagKnown {
				ms := p.TimeLag.Milliseconds()
				ph.TimeLagMs = &ms
			}
			if p.Catchup != consumerhealth.CatchupUnknown {
				ms := p.ETA.Milliseconds()
				ph.EtaMs = &ms
			}
			if ph.Lags == nil {
				ph.Lags = []int64{}
			}
			gh.Partitions = append(gh.Partitions, ph)
		}
		doc.Groups = append(doc.Groups, gh)
	}
	return doc
}

// StatusOf reads a status name back (NOTFOUND when unknown).
func StatusOf(name string) consumerhealth.Status {
	for s := consumerhealth.NotFound; s <= consumerhealth.Rewind; s++ {
		if s.String() == name {
			return s
		}
	}
	return consumerhealth.NotFound
}
