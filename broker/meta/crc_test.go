package meta_test

import (
	"hash/crc32"
	"strconv"
)

func crcOf(s string) string {
	return strconv.FormatUint(uint64(crc32.Checksum([]byte(s), crc32.MakeTable(crc32.Castagnoli))), 10)
}
