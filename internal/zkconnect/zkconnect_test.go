package zkconnect

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}, ""},
		{"zk1, zk2:2182 ,zk3/kafka/prod", []string{"zk1:2181", "zk2:2182", "zk3:2181"}, "/kafka/prod"},
		{"[::1]:2181/", []string{"[::1]:2181"}, ""},
	} {
		servers, chroot, err := Parse(tc.in)
		if err != nil || !reflect.DeepEqual(servers, tc.servers) || chroot != tc.chroot {
			t.Errorf("Parse(%q) = %v %q %v; want %v %q", tc.in, servers, chroot, err, tc.servers, tc.chroot)
		}
	}
	for _, bad := range []string{"", " , ", "zk1,,zk2", "/kafka", "zk1/kafka/", "zk1/a//b", "zk1:0", "zk1:99999", "zk1:x", ":2181", "a:b:c"} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if _, _, err := Parse(" "); !errors.Is(err, ErrNoServers) {
		t.Errorf("no servers: %v", err)
	}
	if _, _, err := Parse("zk1/a/"); !errors.Is(err, ErrChroot) || err.Error() != `chroot "/a/" must be an absolute znode path without a trailing or doubled '/'` {
		t.Errorf("bad chroot: %v", err)
	}
}
