package znode

// IsrChangeNotification is /isr_change_notification/isr_change_<seq>, which
// a 2.x partition leader writes after ISR changes so the controller
// re-reads those partitions' state and sends UpdateMetadata:
//
//	{"version":1,"partitions":[{"topic":"orders","partition":0}]}
type IsrChangeNotification struct {
	Partitions []TopicPartition
}

// Marshal encodes the notification.
func (n IsrChangeNotification) Marshal() ([]byte, error) {
	return partitionList("isr change notification", 1, n.Partitions)
}

// Unmarshal decodes the notification.
func (n *IsrChangeNotification) Unmarshal(data []byte) error {
	tps, err := parsePartitionList("isr change notification", data)
	if err != nil {
		return err
	}
	n.Partitions = tps
	return nil
}

// ParseIsrChangeNotification decodes an ISR change notification.
func ParseIsrChangeNotification(data []byte) (IsrChangeNotification, error) {
	var n IsrChangeNotification
	err := n.Unmarshal(data)
	return n, err
}

// LogDirFailureEvent is the only log dir event Kafka defines.
const LogDirFailureEvent int32 = 1

// LogDirEventNotification is /log_dir_event_notification/log_dir_event_<seq>,
// written by a broker whose log dir failed:
//
//	{"version":1,"broker":1,"event":1}
type LogDirEventNotification struct {
	BrokerID int32
	Event    int32
}

// Marshal encodes the notification.
func (n LogDirEventNotification) Marshal() ([]byte, error) {
	var o object
	o.field("version", 1)
	o.field("broker", n.BrokerID)
	o.field("event", n.Event)
	return o.bytes()
}

// Unmarshal decodes the notification.
func (n *LogDirEventNotification) Unmarshal(data []byte) error {
	const what = "log dir event notification"
	var v struct {
		Broker *int32 `json:"broker"`
		Event  *int32 `json:"event"`
	}
	if err := decode(what, data, &v); err != nil {
		return err
	}
	if v.Broker == nil || v.Event == nil {
		return parseErr(what, "missing broker or event in %s", data)
	}
	*n = LogDirEventNotification{BrokerID: *v.Broker, Event: *v.Event}
	return nil
}

// ParseLogDirEventNotification decodes a log dir event notification.
func ParseLogDirEventNotification(data []byte) (LogDirEventNotification, error) {
	var n LogDirEventNotification
	err := n.Unmarshal(data)
	return n, err
}
