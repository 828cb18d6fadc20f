package api

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzDecodeRequest feeds arbitrary bodies to the decoder of every served
// API key and version: decoding must fail cleanly or succeed, never panic,
// and what decodes must re-encode and decode again to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []kmsg.Request{
		func() kmsg.Request {
			r := kmsg.NewPtrProduceRequest()
			r.Version = 7
			r.Acks = -1
			t := kmsg.NewProduceRequestTopic()
			t.Topic = "t"
			p := kmsg.NewProduceRequestTopicPartition()
			p.Records = []byte{0, 1, 2}
			t.Partitions = append(t.Partitions, p)
			r.Topics = append(r.Topics, t)
			return r
		}(),
		func() kmsg.Request { r := kmsg.NewPtrMetadataRequest(); r.Version = 9; return r }(),
		func() kmsg.Request { r := kmsg.NewPtrFetchRequest(); r.Version = 12; return r }(),
		func() kmsg.Request { r := kmsg.NewPtrApiVersionsRequest(); r.Version = 3; return r }(),
	} {
		f.Add(seed.Key(), seed.GetVersion(), seed.AppendTo(nil))
	}
	f.Add(int16(0), int16(9), []byte{0xff, 0xff, 0xff, 0xff, 0x7f})
	served := map[int16][2]int16{}
	s := &Server{handlers: map[int16]*apiHandler{}}
	s.d = &Deps{}
	s.registerAll()
	for k, h := range s.handlers {
		served[k] = [2]int16{h.minVersion, h.maxVersion}
	}
	f.Fuzz(func(t *testing.T, key, version int16, body []byte) {
		r, ok := served[key]
		if !ok || version < r[0] || version > r[1] {
			key = int16(uint16(key) % 61)
			r, ok = served[key]
			if !ok {
				return
			}
			version = r[0] + int16(uint16(version)%uint16(r[1]-r[0]+1))
		}
		req, err := decodeRequest(key, version, body)
		if err != nil {
			return
		}
		again, err := decodeRequest(key, version, req.AppendTo(nil))
		if err != nil {
			t.Fatalf("key %d v%d: re-encoded request does not decode: %v", key, version, err)
		}
		if a, b := string(req.AppendTo(nil)), string(again.AppendTo(nil)); a != b {
			t.Fatalf("key %d v%d: encoding not stable", key, version)
		}
	})
}
