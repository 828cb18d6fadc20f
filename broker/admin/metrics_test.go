package admin

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"kafgo/broker/quota"
)

// TestCollectQuota: each quota figure goes out under its name with the
// side label, the throttling gauge 1 only while the quota is exceeded.
func TestCollectQuota(t *testing.T) {
	ch := make(chan prometheus.Metric, 16)
	collectQuota(ch, "follower", quota.Stats{RecordedBytes: 3 << 20, HeldBack: 4, Rate: 286000.5, Limit: 200000, Exceeded: true})
	collectQuota(ch, "leader", quota.Stats{Limit: quota.Unlimited})
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		if len(pb.Label) != 1 || pb.Label[0].GetName() != "side" {
			t.Fatalf("labels %v", pb.Label)
		}
		v := pb.GetGauge().GetValue()
		if pb.Counter != nil {
			v = pb.GetCounter().GetValue()
		}
		got[m.Desc().String()+" "+pb.Label[0].GetValue()] = v
	}
	want := map[*prometheus.Desc]map[string]float64{
		descThrottleBytes: {"follower": 3 << 20, "leader": 0},
		descThrottleRate:  {"follower": 286000.5, "leader": 0},
		descThrottleLimit: {"follower": 200000, "leader": float64(quota.Unlimited)},
		descThrottling:    {"follower": 1, "leader": 0},
		descHeldBack:      {"follower": 4, "leader": 0},
	}
	if len(got) != 10 {
		t.Fatalf("%d series: %v", len(got), got)
	}
	for d, sides := range want {
		for side, v := range sides {
			if g, ok := got[d.String()+" "+side]; !ok || g != v {
				t.Errorf("%s{side=%q} = %v (present %v), want %v", d, side, g, ok, v)
			}
		}
	}
}
