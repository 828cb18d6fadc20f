//go:build !unix

package storage

import "os"

const (
	flagCreate = os.O_CREATE
	flagTrunc  = os.O_TRUNC
	flagExcl   = os.O_EXCL
)

func defaultMaxOpenFiles() int     { return 512 }
func defaultMaxIndexMappings() int { return 16384 }
