package api

import (
	"path/filepath"
	"sort"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
)

// DescribeLogDirs (key 35): each partition's size, offset lag and the
// log directory's total and usable bytes (v4). Needs Describe on the
// cluster: otherwise no directories, and (v3+) CLUSTER_AUTHORIZATION_FAILED.
func init() { regKey(kmsg.NewPtrDescribeLogDirsRequest(), 0, 4, (*Server).handleDescribeLogDirs) }

func (s *Server) handleDescribeLogDirs(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeLogDirsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	if !s.authorizeCluster(c, acl.OpDescribe) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	want := func(tp partid.TopicPartition) bool { return true }
	if req.Topics != nil {
		set := map[partid.TopicPartition]bool{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				set[partid.TopicPartition{Topic: t.Topic, Partition: p}] = true
			}
		}
		want = func(tp partid.TopicPartition) bool { return set[tp] }
	}
	byDir := map[string]map[string][]kmsg.DescribeLogDirsResponseDirTopicPartition{}
	for _, dir := range s.d.Config().LogDirs {
		abs, _ := filepath.Abs(dir)
		byDir[abs] = map[string][]kmsg.DescribeLogDirsResponseDirTopicPartition{}
	}
	for tp, l := range s.d.Logs.Logs() {
		if !want(tp) {
			continue
		}
		dir, _ := filepath.Abs(filepath.Dir(l.Dir()))
		if byDir[dir] == nil {
			byDir[dir] = map[string][]kmsg.DescribeLogDirsResponseDirTopicPartition{}
		}
		p := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		p.Partition = tp.Partition
		p.Size = l.Size()
		// Kafka's offset lag: how far this replica's LEO is behind the HW.
		if rp, ok := s.d.Replicas.Partition(tp); ok {
			p.OffsetLag = max(0, rp.HighWatermark()-l.LogEndOffset())
		}
		byDir[dir][tp.Topic] = append(byDir[dir][tp.Topic], p)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		od := kmsg.NewDescribeLogDirsResponseDir()
		od.Dir = d
		var st syscall.Statfs_t
		if err := syscall.Statfs(d, &st); err == nil {
			od.TotalBytes = int64(st.Blocks) * int64(st.Bsize)
			od.UsableBytes = int64(st.Bavail) * int64(st.Bsize)
		} else {
			od.TotalBytes, od.UsableBytes = -1, -1
		}
		topics := make([]string, 0, len(byDir[d]))
		for t := range byDir[d] {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for _, t := range topics {
			ot := kmsg.NewDescribeLogDirsResponseDirTopic()
			ot.Topic = t
			ot.Partitions = byDir[d][t]
			sort.Slice(ot.Partitions, func(i, j int) bool { return ot.Partitions[i].Partition < ot.Partitions[j].Partition })
			od.Topics = append(od.Topics, ot)
		}
		resp.Dirs = append(resp.Dirs, od)
	}
	return respond(resp)
}
