package znode

import (
	"context"
	"errors"
	"fmt"

	"kafgo/broker/meta"
	"kafgo/internal/uuid"
)

// ClusterID is /cluster/id: {"version":"1","id":"<22-char uuid>"}. Note the
// version is a JSON string, as Kafka writes it.
type ClusterID struct {
	ID string
}

// Marshal encodes the znode as Kafka does.
func (c ClusterID) Marshal() ([]byte, error) {
	if c.ID == "" {
		return nil, marshalErr("cluster id", errors.New("empty id"))
	}
	var o object
	o.field("version", "1")
	o.field("id", c.ID)
	return o.bytes()
}

// Unmarshal decodes the znode; the version may be a string or a number.
func (c *ClusterID) Unmarshal(data []byte) error {
	var v struct {
		Version flexInt `json:"version"`
		ID      string  `json:"id"`
	}
	if err := decode("/cluster/id", data, &v); err != nil {
		return err
	}
	if v.ID == "" {
		return parseErr("/cluster/id", "no id in %s", data)
	}
	c.ID = v.ID
	return nil
}

// ParseClusterID decodes /cluster/id.
func ParseClusterID(data []byte) (ClusterID, error) {
	var c ClusterID
	err := c.Unmarshal(data)
	return c, err
}

// NewClusterID returns a fresh cluster id: a random Kafka Uuid in its
// 22-character URL-safe base64 form.
func NewClusterID() (string, error) {
	u, err := uuid.New()
	if err != nil {
		return "", fmt.Errorf("znode: new cluster id: %w", err)
	}
	return u.String(), nil
}

// NewTopicID returns a fresh topic id (KIP-516), the same Uuid written to
// /brokers/topics/<t> "topic_id" and to partition.metadata.
func NewTopicID() (uuid.UUID, error) {
	u, err := uuid.New()
	if err != nil {
		return uuid.Zero, fmt.Errorf("znode: new topic id: %w", err)
	}
	return u, nil
}

// GetOrCreateClusterID returns the cluster id in /cluster/id, creating it
// (and /cluster) with a new id if missing, as Kafka's
// KafkaZkClient.getClusterId / createOrGetClusterId. When brokers race,
// exactly one create wins and every caller returns the winner's id.
func GetOrCreateClusterID(ctx context.Context, s meta.Store) (string, error) {
	// Two rounds suffice: if our create loses, the winner's znode exists.
	// A third would mean someone deletes /cluster/id meanwhile.
	for range 3 {
		data, _, err := s.Get(ctx, ClusterIDPath)
		if err == nil {
			c, err := ParseClusterID(data)
			if err != nil {
				return "", err
			}
			return c.ID, nil
		}
		if !errors.Is(err, meta.ErrNoNode) {
			return "", fmt.Errorf("znode: read cluster id: %w", err)
		}
		id, err := NewClusterID()
		if err != nil {
			return "", err
		}
		enc, err := ClusterID{ID: id}.Marshal()
		if err != nil {
			return "", err
		}
		err = meta.CreateRecursive(ctx, s, ClusterIDPath, enc, meta.Persistent)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, meta.ErrNodeExists) {
			return "", fmt.Errorf("znode: create cluster id: %w", err)
		}
	}
	return "", errors.New("znode: /cluster/id keeps disappearing")
}

// EnsurePersistentPaths creates every path in PersistentPaths that is
// missing, as a 2.x broker does at start-up.
func EnsurePersistentPaths(ctx context.Context, s meta.Store) error {
	for _, p := range PersistentPaths {
		if err := meta.EnsurePath(ctx, s, p); err != nil {
			return fmt.Errorf("znode: ensure %s: %w", p, err)
		}
	}
	return nil
}
