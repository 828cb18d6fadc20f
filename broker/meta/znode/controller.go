package znode

import (
	"bytes"
	"fmt"
	"strconv"
)

// Controller is /controller, the ephemeral the elected controller holds:
//
//	{"version":1,"brokerid":1,"timestamp":"1609459200000"}
//
// Kafka 3.4+ writes version 2 with "kraftControllerEpoch" during a ZK to
// KRaft migration (KIP-866); it is read, and written only for Version 2.
type Controller struct {
	Version              int    // 0 means 1
	BrokerID             int32  // the controller's broker id
	Timestamp            string // election time, ms since the epoch, decimal
	KRaftControllerEpoch int32  // version 2 only; -1 when not migrating
}

// Marshal encodes the znode.
func (c Controller) Marshal() ([]byte, error) {
	version := c.Version
	if version == 0 {
		version = 1
	}
	if version != 1 && version != 2 {
		return nil, marshalErr("controller", fmt.Errorf("version %d: want 1 or 2", version))
	}
	var o object
	o.field("version", version)
	o.field("brokerid", c.BrokerID)
	o.field("timestamp", c.Timestamp)
	if version == 2 {
		o.field("kraftControllerEpoch", c.KRaftControllerEpoch)
	}
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr("controller", err)
	}
	return out, nil
}

// Unmarshal decodes versions 1 and 2. Very old Kafka wrote a bare broker id
// ("1"); that is accepted too.
func (c *Controller) Unmarshal(data []byte) error {
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 32); err == nil {
		*c = Controller{Version: 1, BrokerID: int32(n), KRaftControllerEpoch: -1}
		return nil
	}
	var v struct {
		Version   int        `json:"version"`
		BrokerID  *int32     `json:"brokerid"`
		Timestamp flexString `json:"timestamp"`
		KRaft     *int32     `json:"kraftControllerEpoch"`
	}
	if err := decode("/controller", data, &v); err != nil {
		return err
	}
	if v.BrokerID == nil {
		return parseErr("/controller", "no brokerid in %s", data)
	}
	out := Controller{Version: v.Version, BrokerID: *v.BrokerID, Timestamp: string(v.Timestamp), KRaftControllerEpoch: -1}
	if v.KRaft != nil {
		out.KRaftControllerEpoch = *v.KRaft
	}
	*c = out
	return nil
}

// ParseController decodes /controller.
func ParseController(data []byte) (Controller, error) {
	var c Controller
	err := c.Unmarshal(data)
	return c, err
}

// InitialControllerEpoch is the value Kafka creates /controller_epoch with;
// the first elected controller then writes 1.
const InitialControllerEpoch int32 = 0

// EncodeControllerEpoch is /controller_epoch's data: the epoch in decimal.
func EncodeControllerEpoch(epoch int32) []byte { return strconv.AppendInt(nil, int64(epoch), 10) }

// ParseControllerEpoch decodes /controller_epoch.
func ParseControllerEpoch(data []byte) (int32, error) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 32)
	if err != nil || n < 0 {
		return 0, parseErr("/controller_epoch", "%q is not an epoch", data)
	}
	return int32(n), nil
}
