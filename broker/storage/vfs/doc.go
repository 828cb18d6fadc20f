// Package vfs is the narrow file-system interface under the partition log:
// every open, read, write, sync, truncate, allocation, rename and removal
// the log makes goes through an FS, and so do the memory mappings of its
// indexes (File.Map). Three implementations:
//
//   - Default, the operating system's files (os.File, mmap, fdatasync,
//     fallocate);
//   - WithErrors, a wrapper that asks an Injector before every operation
//     and fails the ones it names (fail the n-th write of a .log, every
//     sync after the 10th, ENOSPC on allocation...), in the spirit of
//     pebble's vfs/errorfs;
//   - NewMem, an in-memory file system that can crash: Crash returns the
//     file system as a power loss would leave it, with only what was made
//     durable: file contents as of their last Sync (or Mapping.Sync), and
//     directory entries as of their directory's last SyncDir. Writes not yet
//     synced are dropped, new names not yet synced in their directory
//     vanish, renames not yet synced are undone.
//
// Stores through a Mapping are plain memory writes: they cannot fail and are
// not operations; they reach the file (and survive a crash) once the mapping
// or the file is synced, as with a shared mapping of the page cache. Making
// sure a store never lands on an unallocated block (which the kernel answers
// with SIGBUS on a full disk) is the caller's job: File.Allocate first.
//
// A Mapping survives the File it came from being closed, so a caller can map
// an index and keep no descriptor open for it.
package vfs
