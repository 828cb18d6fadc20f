package storage

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// File names and suffixes inside a partition directory.
const (
	logExt         = ".log"
	indexExt       = ".index"
	timeIndexExt   = ".timeindex"
	txnIndexExt    = ".txnindex"
	snapshotExt    = ".snapshot"
	deletedSuffix  = ".deleted"
	cleanedSuffix  = ".cleaned"
	swapSuffix     = ".swap"
	tmpSuffix      = ".tmp"
	deleteDirMark  = "-delete"
	futureDirMark  = "-future"
	offsetNameSize = 20
)

// Names of the checkpoint and metadata files, as Kafka spells them.
const (
	RecoveryPointCheckpointFile     = "recovery-point-offset-checkpoint"
	ReplicationOffsetCheckpointFile = "replication-offset-checkpoint"
	LogStartOffsetCheckpointFile    = "log-start-offset-checkpoint"
	LeaderEpochCheckpointFile       = "leader-epoch-checkpoint"
	PartitionMetadataFile           = "partition.metadata"
	MetaPropertiesFile              = "meta.properties"
	CleanShutdownFile               = ".kafka_cleanshutdown"
)

// offsetFileName is Kafka's %020d name for a file keyed by an offset.
func offsetFileName(offset int64, ext string) string {
	return fmt.Sprintf("%020d%s", offset, ext)
}

func segmentPath(dir string, base int64, ext string) string {
	return filepath.Join(dir, offsetFileName(base, ext))
}

// parseOffsetFileName returns the offset of a name "<digits><ext>". Kafka
// writes 20 digits but parses any length, and so does this.
func parseOffsetFileName(name, ext string) (int64, bool) {
	digits, ok := strings.CutSuffix(name, ext)
	if !ok || digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}
