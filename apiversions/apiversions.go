package apiversions

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/javaerr"
)

// api is one API key as the Java client knows it.
type api struct {
	key            int16
	name           string
	oldest, latest int16
	client         bool
}

func known(key int16) (api, bool) {
	for _, a := range clientAPIs {
		if a.key == key {
			return a, true
		}
	}
	return api{}, false
}

// Range is a version range one broker serves for one key.
type Range struct {
	Key      int16
	Min, Max int16
}

// Node is a broker as Node.toString prints it.
type Node struct {
	ID   int32
	Host string
	Port int32
	Rack *string
}

func (n Node) String() string {
	rack := "null"
	if n.Rack != nil {
		rack = *n.Rack
	}
	return fmt.Sprintf("%s:%d (id: %d rack: %s)", n.Host, n.Port, n.ID, rack)
}

// Format is NodeApiVersions.toString(true) for the ranges a broker sent.
func Format(ranges []Range) string {
	text := map[int16]string{}
	for _, r := range ranges {
		text[r.Key] = entry(r)
	}
	for _, a := range clientAPIs {
		if _, ok := text[a.key]; !ok && a.client {
			text[a.key] = fmt.Sprintf("%s(%d): UNSUPPORTED", a.name, a.key)
		}
	}
	keys := make([]int, 0, len(text))
	for k := range text {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = text[int16(k)]
	}
	return "(\n\t" + strings.Join(parts, ",\n\t") + "\n)"
}

func entry(r Range) string {
	var b strings.Builder
	a, ok := known(r.Key)
	if ok {
		fmt.Fprintf(&b, "%s(%d): ", a.name, a.key)
	} else {
		fmt.Fprintf(&b, "UNKNOWN(%d): ", r.Key)
	}
	if r.Min == r.Max {
		fmt.Fprintf(&b, "%d", r.Min)
	} else {
		fmt.Fprintf(&b, "%d to %d", r.Min, r.Max)
	}
	if ok {
		switch {
		case a.latest < r.Min:
			b.WriteString(" [unusable: node too new]")
		case r.Max < a.oldest:
			b.WriteString(" [unusable: node too old]")
		default:
			fmt.Fprintf(&b, " [usable: %d]", min(a.latest, r.Max))
		}
	}
	return b.String()
}

// Run prints every broker's versions, asking each broker in turn.
func Run(ctx context.Context, cl *kgo.Client, out io.Writer) error {
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("broker-api-versions: metadata: %w", err)
	}
	for _, b := range meta.Brokers {
		n := Node{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
		ranges, err := versions(ctx, cl, b.NodeID)
		if err != nil {
			fmt.Fprintf(out, "%s -> ERROR: %s\n", n, javaerr.FromError(err))
			continue
		}
		fmt.Fprintf(out, "%s -> %s\n", n, Format(ranges))
	}
	return nil
}

func versions(ctx context.Context, cl *kgo.Client, id int32) ([]Range, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "kafgo"
	req.ClientSoftwareVersion = "1"
	kr, err := cl.Broker(int(id)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kr.(*kmsg.ApiVersionsResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	out := make([]Range, len(resp.ApiKeys))
	for i, k := range resp.ApiKeys {
		out[i] = Range{Key: k.ApiKey, Min: k.MinVersion, Max: k.MaxVersion}
	}
	return out, nil
}
