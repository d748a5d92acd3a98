//go:build wasip1

package action

import (
	"os"
	"path"
	"strings"
	"unsafe"
)

// The module's view of the runner's files: under WASI a program can open
// only what lies below a directory the host preopened for it, and Go's
// syscall package answers "Invalid argument" for any other path. These
// helpers let action mode say so plainly.

type wasiPrestat struct {
	tag     uint32 // 0: a directory
	nameLen uint32
}

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
func wasiPrestatGet(fd int32, buf unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_dir_name
func wasiPrestatDirName(fd int32, buf unsafe.Pointer, n uint32) uint32

// preopened returns the guest paths of the directories the host preopened,
// in descriptor order, as Go's syscall package finds them (descriptors 3
// and up until one is not open).
func preopened() []string {
	var dirs []string
	for fd := int32(3); fd < 1<<16; fd++ {
		var st wasiPrestat
		if errno := wasiPrestatGet(fd, unsafe.Pointer(&st)); errno != 0 {
			if errno == 8 { // EBADF: no more descriptors
				break
			}
			continue
		}
		if st.tag != 0 || st.nameLen == 0 {
			continue
		}
		name := make([]byte, st.nameLen)
		if wasiPrestatDirName(fd, unsafe.Pointer(&name[0]), st.nameLen) != 0 {
			continue
		}
		dirs = append(dirs, strings.TrimRight(string(name), "\x00"))
	}
	return dirs
}

// outsideView reports whether the module cannot reach p because no
// preopened directory holds it, and lists the directories it can reach.
// A relative p is taken from the working directory (PWD).
func outsideView(p string) (bool, []string) {
	dirs := preopened()
	if !path.IsAbs(p) {
		wd, _ := os.Getwd()
		p = path.Join(wd, p)
	}
	p = path.Clean(p)
	for _, d := range dirs {
		d = path.Clean(d)
		if d == "/" || p == d || strings.HasPrefix(p, d+"/") {
			return false, dirs
		}
	}
	return true, dirs
}
