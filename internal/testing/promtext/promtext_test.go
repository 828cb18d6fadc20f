package promtext

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := `# HELP x_total A thing.
# TYPE x_total counter
x_total 3
x_total{topic="a",partition="0"} 1.5
y{quote="a\"b",nl="l\nm"} -2
h_bucket{le="+Inf"} 7
`
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d samples: %+v", len(got), got)
	}
	if v, ok := Value(got, "x_total", nil); !ok || v != 3 {
		t.Fatalf("total %v %v", v, ok)
	}
	if v, ok := Value(got, "x_total", map[string]string{"topic": "a", "partition": "0"}); !ok || v != 1.5 {
		t.Fatalf("topic a %v %v", v, ok)
	}
	if _, ok := Value(got, "x_total", map[string]string{"topic": "a"}); ok {
		t.Fatal("Value matched a sample with more labels")
	}
	if s := Sum(got, "x_total", nil); s != 4.5 {
		t.Fatalf("sum %v", s)
	}
	if y := Find(got, "y", nil); len(y) != 1 || y[0].Labels["quote"] != `a"b` || y[0].Labels["nl"] != "l\nm" || y[0].Value != -2 {
		t.Fatalf("escapes %+v", y)
	}
	if _, err := Parse(strings.NewReader("x{a=1} 2\n")); err == nil {
		t.Fatal("unquoted label value accepted")
	}
}

func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`sum(rate(kafka_server_brokertopicmetrics_messagesin_total{topic!="",instance=~"$instance"}[$__rate_interval])) by (topic)`,
			[]string{"kafka_server_brokertopicmetrics_messagesin_total"}},
		{`histogram_quantile(0.99, sum by (le, request) (rate(kafka_network_requestmetrics_totaltimems_bucket{request="Produce"}[5m])))`,
			[]string{"kafka_network_requestmetrics_totaltimems_bucket"}},
		{`sum(a_metric) / ignoring(x) group_left(y) sum without (job) (b_metric offset 5m) > bool 0 or on(instance) c`,
			[]string{"a_metric", "b_metric", "c"}},
		{`max(kafka_consumergroup_lag{consumergroup=~"${group}"}) by (consumergroup, topic) and vector(1)`,
			[]string{"kafka_consumergroup_lag"}},
		{`1 - avg(x:recorded:rate5m) * 1e3 + [[var]]`, []string{"x:recorded:rate5m"}},
	} {
		if got := MetricNames(tc.expr); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MetricNames(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}
