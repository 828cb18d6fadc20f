package partid

import (
	"reflect"
	"testing"
)

func TestByTopic(t *testing.T) {
	got := ByTopic([]TopicPartition{{"b", 0}, {"a", 2}, {"a", 1}, {"ab", 0}})
	want := []Topic{{"a", []int32{1, 2}}, {"ab", []int32{0}}, {"b", []int32{0}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if ByTopic(nil) != nil {
		t.Fatal("no partitions grouped to something")
	}
}
