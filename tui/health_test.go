package tui

import (
	"fmt"
	"testing"
	"time"
)

// healthGroups are six snapshots, 2 s apart, of four groups whose
// coordinator reports the statuses: billing keeps up (OK), audit
// falls behind (WARNING, its lag growing), exports stopped committing
// (STOP) and replay went back to an earlier offset (REWIND).
func healthGroups() []*Snapshot {
	var out []*Snapshot
	for i := 0; i < 6; i++ {
		s := healthy()
		s.Taken = fixedTime.Add(time.Duration(i-5) * 2 * time.Second)
		grown := int64(100 * i)
		for ti := range s.Topics {
			for pi := range s.Topics[ti].Partitions {
				p := &s.Topics[ti].Partitions[pi]
				if s.Topics[ti].Name == "orders" {
					p.HW += grown
					p.LEO += grown
				}
			}
		}
		b := &s.Groups[0]
		for oi := range b.Offsets {
			o := &b.Offsets[oi]
			o.Committed += grown
			o.End += grown
			o.Health = &PartitionHealth{Status: "OK", Code: 1, TimeLag: 0, TimeLagKnown: true, ETA: 0, ETAKnown: true}
		}
		b.Health = &GroupHealth{Status: "OK", Code: 1}
		mk := func(id, status string, code int, committed, maxLag int64, timeLag, eta time.Duration, etaKnown, behind bool) Group {
			g := Group{ID: id, State: "Stable", ProtocolType: "consumer", Protocol: "range", Coordinator: 2,
				Members: []Member{{ID: id + "-1", ClientID: id, Host: "/10.0.0.9", Assigned: []string{"orders-0"}}},
				Offsets: []GroupOffset{{Topic: "orders", Partition: 0, Committed: committed, End: 1200 + grown, MemberID: id + "-1", ClientID: id, Host: "/10.0.0.9",
					Health: &PartitionHealth{Status: status, Code: code, TimeLag: timeLag, TimeLagKnown: true, ETA: eta, ETAKnown: etaKnown, FallingBehind: behind}}},
				Health: &GroupHealth{Status: status, Code: code, MaxTimeLag: timeLag}}
			return g
		}
		s.Groups = append(s.Groups,
			mk("audit", "WARNING", 2, 1000+grown/2, 0, time.Duration(4+i)*time.Second, time.Duration(20+5*i)*time.Second, true, true),
			mk("exports", "STOP", 4, 900, 0, time.Duration(60+2*i)*time.Second, 0, false, false),
			mk("replay", "REWIND", 6, 100+10*int64(i), 0, 95*time.Second, 50*time.Second, true, false))
		s.Normalize()
		out = append(out, s)
	}
	return out
}

// TestGoldenGroupHealth: the groups tab with the coordinators' consumer
// health: a STATUS column (sortable: by status number, worst last), the
// time lag, the lag sparkline; the detail adds STATUS, TIME-LAG and ETA
// per partition ("+": producers outpace the group).
func TestGoldenGroupHealth(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  Options
		keys []string
	}{
		{"health-groups", Options{View: ViewGroups}, nil},
		// sorted by STATUS (the 7th column), worst first
		{"health-groups-by-status", Options{View: ViewGroups}, []string{"s", "s", "s", "s", "s", "s", "s", "S"}},
		{"health-groups-audit", Options{View: ViewGroups, Group: "audit"}, nil},
	} {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				snaps := healthGroups()
				m := press(t, loadedWith(t, newFake(fakeStep{snap: snaps[5]}), snaps, c.opt, sz.w, sz.h), c.keys...)
				checkFrame(t, name, m.View(), sz.w, sz.h)
			})
		}
	}
}
