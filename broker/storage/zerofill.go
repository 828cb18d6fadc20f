package storage

import "os"

var zeroPage [64 << 10]byte

// zeroFill writes zeros over [off, off+n) of f.
func zeroFill(f *os.File, off, n int64) error {
	for n > 0 {
		chunk := min(n, int64(len(zeroPage)))
		w, err := f.WriteAt(zeroPage[:chunk], off)
		if err != nil {
			return err
		}
		off += int64(w)
		n -= int64(w)
	}
	return nil
}
