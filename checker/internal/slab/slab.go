// Package slab prepares new allocations that the checker reads before it
// writes them.
package slab

// Prefault writes zeros over the whole of s, a new allocation, up to its
// capacity, and returns it. A new allocation's pages are the system's
// until first touched. When the first touch of a page is a read (a probe
// of a hash table's slots, a check of a flag, or the garbage collector's
// write barrier reading the pointer a store replaces), Linux maps it to the
// shared zero page, and the first write then takes a second fault that
// copies the page and, while the check's other goroutines run on other
// cores, flushes their TLBs with an interrupt to each: 4,800 such faults
// and 6.6 % of the CPU of a json check of the 1M-event benchmark log
// (perf, exceptions:page_fault_user; README "Performance"). Written first,
// a page takes one fault. It is for allocations that are written whole
// anyway; one read sparsely is better left to the zero page.
func Prefault[T any](s []T) []T {
	clear(s[:cap(s)])
	return s
}
