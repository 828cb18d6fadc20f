package quota

import "testing"

func TestParseReplicas(t *testing.T) {
	for _, tc := range []struct {
		value  string
		broker int32
		want   string // String() of the set
		empty  bool
		err    bool
	}{
		{value: "", broker: 1, want: "", empty: true},
		{value: "   ", broker: 1, want: "", empty: true},
		{value: "*", broker: 7, want: "*"},
		{value: " * ", broker: 7, want: "*"},
		// Only the pairs naming this broker count.
		{value: "0:1,1:2,2:1", broker: 1, want: "0,2"},
		{value: "0:1,1:2,2:1", broker: 2, want: "1"},
		{value: "0:1,1:2,2:1", broker: 3, want: "", empty: true},
		// Blank items (Kafka's validator allows them) and blanks around
		// items are ignored; duplicates collapse; the set is sorted.
		{value: "10:4, 2:4,,2:4 ,", broker: 4, want: "2,10"},
		// Numbers too large for an id name no replica.
		{value: "99999999999:1,3:1", broker: 1, want: "3"},
		{value: "0:1,x:1", broker: 1, err: true},
		{value: "0-1", broker: 1, err: true},
		{value: "0:1:2", broker: 1, err: true},
		{value: "*,0:1", broker: 1, err: true},
		{value: "-1:1", broker: 1, err: true},
	} {
		r, err := ParseReplicas(tc.value, tc.broker)
		if tc.err {
			if err == nil {
				t.Errorf("ParseReplicas(%q, %d) = %v, want an error", tc.value, tc.broker, r)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseReplicas(%q, %d): %v", tc.value, tc.broker, err)
			continue
		}
		if r.String() != tc.want || r.Empty() != tc.empty {
			t.Errorf("ParseReplicas(%q, %d) = %q (empty %v), want %q (empty %v)", tc.value, tc.broker, r, r.Empty(), tc.want, tc.empty)
		}
	}
}

func TestReplicasContains(t *testing.T) {
	r, err := ParseReplicas("0:1,5:1,3:2,9:1", 1)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[int32]bool{0: true, 5: true, 9: true, 3: false, 1: false, 10: false, -1: false} {
		if r.Contains(p) != want {
			t.Errorf("Contains(%d) = %v, want %v", p, !want, want)
		}
	}
	if !AllReplicas.Contains(12345) {
		t.Error("* does not contain every partition")
	}
	var none Replicas
	if none.Contains(0) || !none.Empty() {
		t.Error("the zero value throttles something")
	}
}
