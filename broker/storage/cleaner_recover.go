package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kafgo/broker/storage/vfs"
)

// logSwapExt names a committed cleaned segment whose swap did not finish.
const logSwapExt = logExt + swapSuffix

// completeSwaps finishes the segment swaps a crash interrupted, before the
// directory is loaded (Kafka's LogLoader does the same with .swap files).
//
// A "<base>.log.swap" was fully written and fsynced before it got that name,
// so it is the data from base up to its last batch; the cleaner made that
// last batch end where the last source segment ended (see batchFilter). So
// the segments it replaces are exactly those whose base offset lies in
// [base, next offset of the swap): they are removed, then the swap takes
// its final name. Offset and time index files of a swap are removed, not
// trusted: the loader rebuilds missing indexes from the log. Its transaction
// index is kept (it was synced before the commit, and cannot be rebuilt
// from the segment alone) and takes its final name after the log. A
// "<base>.txnindex.swap" without a .log.swap belongs to a swap not yet
// committed if "<base>.log.cleaned" exists (it is removed), and otherwise
// to one whose log already has its final name (it is renamed). Every step can be redone,
// so a crash during this recovery is recovered by the next open.
func (l *Log) completeSwaps() error {
	ents, err := l.fs.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("storage: list %s: %w", l.dir, err)
	}
	var swaps, logs []int64
	txnSwaps := map[int64]bool{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		if b, ok := parseOffsetFileName(name, logSwapExt); ok {
			swaps = append(swaps, b)
		} else if b, ok := parseOffsetFileName(name, txnIndexExt+swapSuffix); ok {
			txnSwaps[b] = true
		} else if b, ok := parseOffsetFileName(name, logExt); ok {
			logs = append(logs, b)
		} else if strings.HasSuffix(name, indexExt+swapSuffix) || strings.HasSuffix(name, timeIndexExt+swapSuffix) {
			l.removeLeftover(filepath.Join(l.dir, name))
		}
	}
	for b := range txnSwaps {
		if slices.Contains(swaps, b) {
			continue
		}
		path := segmentPath(l.dir, b, txnIndexExt+swapSuffix)
		if _, err := l.fs.Stat(segmentPath(l.dir, b, logExt+cleanedSuffix)); err == nil {
			l.removeLeftover(path)
		} else if err := l.fs.Rename(path, segmentPath(l.dir, b, txnIndexExt)); err != nil {
			return fmt.Errorf("storage: complete swap of %s: %w", path, err)
		}
	}
	if len(swaps) == 0 {
		return nil
	}
	slices.Sort(swaps)
	for _, base := range swaps {
		path := segmentPath(l.dir, base, logSwapExt)
		next, err := swapNextOffset(l.fs, path, base)
		if err != nil {
			return err
		}
		upper := max(next, base+1)
		for _, b := range logs {
			if b < base || b >= upper {
				continue
			}
			l.logger.Warn("storage: removing segment replaced by an interrupted cleaning swap", "segment", segmentPath(l.dir, b, logExt), "swap", path)
			for _, ext := range []string{indexExt, timeIndexExt, txnIndexExt, logExt} {
				if err := l.fs.Remove(segmentPath(l.dir, b, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("storage: remove replaced segment file: %w", err)
				}
			}
		}
		if err := l.syncLogDir(); err != nil {
			return err
		}
		if err := l.fs.Rename(path, segmentPath(l.dir, base, logExt)); err != nil {
			return fmt.Errorf("storage: complete swap %s: %w", path, err)
		}
		if txnSwaps[base] {
			if err := l.fs.Rename(segmentPath(l.dir, base, txnIndexExt+swapSuffix), segmentPath(l.dir, base, txnIndexExt)); err != nil {
				return fmt.Errorf("storage: complete swap of %s: %w", path, err)
			}
		}
		l.logger.Info("storage: completed an interrupted cleaning swap", "segment", segmentPath(l.dir, base, logExt), "next_offset", next)
	}
	return l.syncLogDir()
}

// swapNextOffset is the offset after the last whole batch of a swap file.
func swapNextOffset(fsys vfs.FS, path string, base int64) (int64, error) {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("storage: open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("storage: stat %s: %w", path, err)
	}
	next := base
	sc := newBatchScanner(f, path, 0, st.Size())
	for {
		h, _, _, err := sc.next(false)
		if err != nil {
			// A swap was fsynced before it was named so; anything that does
			// not parse is left to the loader's recovery, which cuts it.
			return next, nil
		}
		next = max(next, h.NextOffset())
	}
}
