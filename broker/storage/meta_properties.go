package storage

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kafgo/broker/storage/vfs"
	"kafgo/internal/javaprops"
)

// MetaProperties is the content of a log dir's meta.properties in ZooKeeper
// mode (version 0): which broker and cluster the directory belongs to.
type MetaProperties struct {
	BrokerID  int32
	ClusterID string // "" when an old file has none
}

// javaDateLayout is java.util.Date.toString, which Properties.store writes as
// the second comment line.
const javaDateLayout = "Mon Jan 02 15:04:05 MST 2006"

// ReadMetaProperties parses meta.properties. Only version 0 (ZooKeeper
// mode) is accepted: a version 1 file belongs to a KRaft node.
func ReadMetaProperties(path string) (MetaProperties, error) {
	return readMetaProperties(vfs.Default, path)
}

func readMetaProperties(fsys vfs.FS, path string) (MetaProperties, error) {
	var mp MetaProperties
	data, err := readSmallFile(fsys, path, 64<<10)
	if err != nil {
		return mp, err
	}
	props, err := parseJavaProperties(path, data)
	if err != nil {
		return mp, err
	}
	if v := props["version"]; v != "0" {
		if v == "1" {
			// Written by kafka-storage.sh format for a KRaft node: its
			// metadata is the __cluster_metadata log, not ZooKeeper.
			return mp, fmt.Errorf("storage: %s: version 1 (node.id=%q): a KRaft-mode log dir, which kafgo cannot run on; kafgo reads log dirs of ZooKeeper-mode brokers (version 0, with broker.id): %w", path, props["node.id"], ErrCorruptFile)
		}
		return mp, fmt.Errorf("storage: %s: version %q, only 0 (ZooKeeper mode) is supported: %w", path, v, ErrCorruptFile)
	}
	id, err := strconv.ParseInt(props["broker.id"], 10, 32)
	if err != nil {
		return mp, fmt.Errorf("storage: %s: broker.id %q is not an int32: %w", path, props["broker.id"], ErrCorruptFile)
	}
	mp.BrokerID = int32(id)
	mp.ClusterID = props["cluster.id"]
	return mp, nil
}

// WriteMetaProperties atomically writes meta.properties in the layout
// Properties.store produces: an empty comment, the date, then the keys.
func WriteMetaProperties(path string, mp MetaProperties, now time.Time) error {
	return writeMetaProperties(vfs.Default, path, mp, now)
}

func writeMetaProperties(fsys vfs.FS, path string, mp MetaProperties, now time.Time) error {
	return writeFileAtomic(fsys, path, formatMetaProperties(mp, now))
}

func formatMetaProperties(mp MetaProperties, now time.Time) []byte {
	var b strings.Builder
	b.WriteString("#\n#")
	b.WriteString(now.UTC().Format(javaDateLayout))
	b.WriteString("\nversion=0\n")
	fmt.Fprintf(&b, "broker.id=%d\n", mp.BrokerID)
	if mp.ClusterID != "" {
		b.WriteString("cluster.id=")
		b.WriteString(javaprops.Escape(mp.ClusterID))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// parseJavaProperties reads the java.util.Properties text format; any
// defect makes the file corrupt.
func parseJavaProperties(path string, data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("storage: %s: not UTF-8 text: %w", path, ErrCorruptFile)
	}
	props, err := javaprops.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("storage: %s: %w: %w", path, err, ErrCorruptFile)
	}
	return props, nil
}
