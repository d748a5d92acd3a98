//go:build !wasip1

package action

// outsideView reports whether p lies outside what the process may open: a
// native process may open any path the operating system lets it (the
// wasip1 build answers from the module's preopened directories).
func outsideView(p string) (bool, []string) { return false, nil }
