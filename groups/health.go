package groups

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"kafgo/internal/adminapi"
	"kafgo/internal/adminclient"
	"kafgo/internal/consumerhealth"
)

// --describe --health: the offsets view with the consumer health the
// group's coordinator keeps (internal/consumerhealth, served on its admin
// endpoint's /v1/consumer-health) in extra columns after Kafka's:
//
//	STATUS    Burrow's status of the partition over the coordinator's window
//	TIME-LAG  now minus the time of the next record to read (0s caught up)
//	TREND     the lag over the recent observations: growing, shrinking, flat
//	ETA       the time to catch up; "+" when producers outpace the group (the
//	          backlog alone takes that at the consume rate, and it grows)
//
// then a line with the group's status. The coordinator's admin endpoint is
// found through its admin.listener config.

// healthOf reads the coordinator's evaluation of group; found is false
// when the coordinator has not sampled it yet.
func healthOf(ctx context.Context, adm *kadm.Client, v groupView) (h adminapi.GroupHealth, found bool, err error) {
	addr, err := adminclient.Endpoint(ctx, adm, v.CoordID, v.CoordHost)
	if err != nil {
		return h, false, fmt.Errorf("groups: --health reads the coordinator's consumer health: %w", err)
	}
	var doc adminapi.ConsumerHealth
	if err := adminclient.Get(ctx, addr, adminapi.ConsumerHealthPath, &doc); err != nil {
		return h, false, fmt.Errorf("groups: --health: coordinator %d: %w", v.CoordID, err)
	}
	for _, g := range doc.Groups {
		if g.Group == v.Group {
			return g, true, nil
		}
	}
	return h, false, nil
}

// healthCols are one row's extra columns.
type healthCols struct{ status, timeLag, trend, eta string }

func healthColumns(h adminapi.GroupHealth, topic string, partition int32) healthCols {
	for _, p := range h.Partitions {
		if p.Topic != topic || p.Partition != partition {
			continue
		}
		c := healthCols{status: p.Status, timeLag: missing, trend: Trend(p.Lags), eta: missing}
		if p.TimeLagMs != nil {
			c.timeLag = FormatDuration(time.Duration(*p.TimeLagMs) * time.Millisecond)
		}
		if p.EtaMs != nil {
			c.eta = FormatDuration(time.Duration(*p.EtaMs) * time.Millisecond)
			if adminapi.CatchupOf(p.Catchup) == consumerhealth.FallingBehind {
				c.eta += "+"
			}
		}
		return c
	}
	return healthCols{missing, missing, missing, missing}
}

// Trend says where the recent lags go: growing, shrinking or flat.
func Trend(lags []int64) string {
	if len(lags) < 2 {
		return missing
	}
	first, last := lags[0], lags[len(lags)-1]
	switch {
	case last > first:
		return "growing"
	case last < first:
		return "shrinking"
	}
	return "flat"
}

// FormatDuration is consumerhealth.FormatDuration.
func FormatDuration(d time.Duration) string { return consumerhealth.FormatDuration(d) }

// writeOffsetsHealth is writeOffsets with the health columns after Kafka's
// and the group's status after the table.
func writeOffsetsHealth(b *strings.Builder, v groupView, h adminapi.GroupHealth, found bool) {
	gw, tw, cw, hw, clw := 15, 15, 15, 15, 15
	for _, r := range v.Rows {
		gw = max(gw, len(r.Group))
		tw = max(tw, len(orMissing(r.Topic)))
		cw = max(cw, len(orMissing(r.ConsumerID)))
		hw = max(hw, len(orMissing(r.Host)))
		clw = max(clw, len(orMissing(r.ClientID)))
	}
	line := func(cols ...string) {
		fmt.Fprintf(b, "\n%-*s %-*s %-10s %-15s %-15s %-15s %-*s %-*s %-*s %-8s %-10s %-10s %s",
			gw, cols[0], tw, cols[1], cols[2], cols[3], cols[4], cols[5], cw, cols[6], hw, cols[7], clw, cols[8],
			cols[9], cols[10], cols[11], cols[12])
	}
	line("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID",
		"STATUS", "TIME-LAG", "TREND", "ETA")
	for _, r := range v.Rows {
		c := healthCols{missing, missing, missing, missing}
		if r.Topic != "" {
			c = healthColumns(h, r.topic, r.partition)
		}
		line(r.Group, orMissing(r.Topic), orMissing(r.Partition), orMissing(r.Current), orMissing(r.LogEnd),
			orMissing(r.Lag), orMissing(r.ConsumerID), orMissing(r.Host), orMissing(r.ClientID),
			c.status, c.timeLag, c.trend, c.eta)
	}
	b.WriteByte('\n')
	if !found {
		fmt.Fprintf(b, "\nConsumer group '%s' health: not known yet (its coordinator, broker %d, has not sampled it).\n", v.Group, v.CoordID)
		return
	}
	fmt.Fprintf(b, "\nConsumer group '%s' health: %s (total lag %d, max time lag %s)\n", v.Group, h.Status, h.TotalLag,
		FormatDuration(time.Duration(h.MaxTimeLagMs)*time.Millisecond))
}
