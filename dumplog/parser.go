package dumplog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/group/offsetsrec"
)

// contents is a record's key and payload as the tool prints them; a part
// that is absent is not printed at all.
type contents struct {
	key, payload       string
	hasKey, hasPayload bool
}

// messageParser is Kafka's MessageParser: it turns a record's key and value
// into text. On error, contents holds what could be decoded.
type messageParser interface {
	parse(key, value []byte) (contents, error)
}

// stringParser is Kafka's DecoderMessageParser with StringDecoder for both
// parts: a null key or value prints nothing.
type stringParser struct{}

func (stringParser) parse(key, value []byte) (contents, error) {
	var c contents
	if key != nil {
		c.key, c.hasKey = javaString(key), true
	}
	if value != nil {
		c.payload, c.hasPayload = javaString(value), true
	}
	return c, nil
}

// offsetsParser is Kafka's OffsetsMessageParser for __consumer_offsets.
type offsetsParser struct{}

// consumerProtocolType is ConsumerProtocol.PROTOCOL_TYPE: groups of this
// type have consumer protocol assignments, which Kafka decodes.
const consumerProtocolType = "consumer"

var errNoKey = errors.New("failed to decode message using offset topic decoder (message had a missing key)")

func (offsetsParser) parse(key, value []byte) (contents, error) {
	if key == nil {
		return contents{}, errNoKey
	}
	k, err := offsetsrec.ParseKey(key)
	if errors.Is(err, offsetsrec.ErrUnknownVersion) {
		// A record type from a later Kafka: say which, as Kafka 3.x
		// does, and print nothing for its value.
		return contents{key: "unknown::version=" + strconv.Itoa(int(k.Version)), hasKey: true}, nil
	}
	if err != nil {
		return contents{}, fmt.Errorf("dumplog: offsets decoder: %w", err)
	}
	c := contents{key: formatOffsetsKey(k), hasKey: true}
	var payload string
	switch {
	case value == nil:
		payload = "<DELETE>"
	case k.IsOffset():
		var v offsetsrec.OffsetValue
		if v, err = offsetsrec.ParseOffsetValue(value); err == nil {
			payload = formatOffsetValue(&v)
		}
	default:
		var g offsetsrec.GroupValue
		if g, err = offsetsrec.ParseGroupValue(value); err == nil {
			payload, err = formatGroupValue(&g)
		}
	}
	if err != nil {
		return c, fmt.Errorf("dumplog: offsets decoder: %s: %w", c.key, err)
	}
	c.payload, c.hasPayload = payload, true
	return c, nil
}

func formatOffsetsKey(k offsetsrec.Key) string {
	if k.IsOffset() {
		return fmt.Sprintf("offset_commit::group=%s,partition=%s-%d", javaString([]byte(k.Group)), javaString([]byte(k.Topic)), k.Partition)
	}
	return "group_metadata::group=" + javaString([]byte(k.Group))
}

func formatOffsetValue(v *offsetsrec.OffsetValue) string {
	if v.Metadata == "" {
		return "offset=" + strconv.FormatInt(v.Offset, 10)
	}
	return "offset=" + strconv.FormatInt(v.Offset, 10) + ",metadata=" + javaString([]byte(v.Metadata))
}

// formatGroupValue is the JSON object Kafka prints for group metadata,
// its keys in Kafka's order.
func formatGroupValue(g *offsetsrec.GroupValue) (string, error) {
	var members []string
	for i := range g.Members {
		m := &g.Members[i]
		id := javaString([]byte(m.MemberID))
		if g.ProtocolType != consumerProtocolType {
			members = append(members, id+"="+hexBigInt(m.Assignment))
			continue
		}
		a, err := formatConsumerAssignment(m.Assignment)
		if err != nil {
			return "", fmt.Errorf("member %q: %w", id, err)
		}
		members = append(members, id+"="+a)
	}
	protocol := "null"
	if g.Protocol != nil {
		protocol = jsonQuote(javaString([]byte(*g.Protocol)))
	}
	return fmt.Sprintf(`{"protocolType":%s,"protocol":%s,"generationId":%d,"assignment":%s}`,
		jsonQuote(javaString([]byte(g.ProtocolType))), protocol, g.Generation,
		jsonQuote("{"+strings.Join(members, ",")+"}")), nil
}

// formatConsumerAssignment decodes a consumer protocol assignment and
// prints it as Kafka does: the partitions as Java's List<TopicPartition>
// ("[t-0, t-1]"), then ":<hex>" when there is user data.
func formatConsumerAssignment(b []byte) (string, error) {
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return "", fmt.Errorf("consumer protocol assignment: %w", err)
	}
	if a.Version < 0 {
		return "", fmt.Errorf("consumer protocol assignment: unsupported version %d", a.Version)
	}
	var parts []string
	for _, t := range a.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, javaString([]byte(t.Topic))+"-"+strconv.Itoa(int(p)))
		}
	}
	s := "[" + strings.Join(parts, ", ") + "]"
	if ud := hexBigInt(a.UserData); ud != "" {
		s += ":" + ud
	}
	return s, nil
}
