// Package conformance checks greenlight's repository files with the
// libraries of the tools that read them: actionlint lints every GitHub
// workflow (.github/workflows, the README and docs/) against action.yml.
// It is a module of its own, with no code outside its tests, so that
// actionlint and what it needs stay out of greenlight's go.mod and so out
// of the module graph of every program that imports greenlight's packages
// (checker/importer_test.go shows that graph).
package conformance
