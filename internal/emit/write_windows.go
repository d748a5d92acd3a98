package emit

import "syscall"

// rawWrite is one WriteFile call on the handle; a handle opened with
// O_APPEND (FILE_APPEND_DATA) writes at the end of the file.
func rawWrite(fd uintptr, b []byte) (int, error) {
	return syscall.Write(syscall.Handle(fd), b)
}
